"""The cache's own guarantees (project/cache.py): keys follow the import closure, the analyzer
and the configuration; entries survive only whole; the folder is bounded."""
import json
import os

from shapehint.config import Config
from shapehint.project import cache as C
from shapehint.project.deps import Project


def _key(tmp_path, name="main.py", config=None):
    return C.file_key(Project(), str(tmp_path / name), config or Config())


def test_the_key_follows_the_file_its_closure_and_the_configuration(tmp_path):
    (tmp_path / "main.py").write_text("import torch\nfrom helpers import f\n")
    (tmp_path / "helpers.py").write_text("import util\ndef f(x):\n    return x\n")
    (tmp_path / "util.py").write_text("A = 1\n")
    (tmp_path / "unrelated.py").write_text("B = 1\n")
    first = _key(tmp_path)
    assert _key(tmp_path) == first
    (tmp_path / "unrelated.py").write_text("B = 2\n")
    assert _key(tmp_path) == first, "a file outside the closure changes nothing"
    (tmp_path / "util.py").write_text("A = 2\n")
    second = _key(tmp_path)
    assert second != first, "a file imported through another one is part of the key"
    assert _key(tmp_path, config=Config(rlimit=5)) != second
    assert _key(tmp_path, config=Config(severity={"SH101": "warning"})) != second
    (tmp_path / "main.py").write_text("import torch\nfrom helpers import f\n# a comment\n")
    assert _key(tmp_path) != second


def test_a_new_module_that_changes_what_an_import_finds_changes_the_key(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "main.py").write_text("import torch\nimport layers\n")
    (tmp_path / "layers.py").write_text("X = 1\n")  # found one folder up
    before = _key(tmp_path, "pkg/main.py")
    (tmp_path / "pkg" / "layers.py").write_text("X = 1\n")  # now found next to the file first
    assert _key(tmp_path, "pkg/main.py") != before


def test_entries_round_trip_and_corrupt_ones_are_misses(tmp_path):
    cache = C.Cache(str(tmp_path / "c"))
    entry = {"diagnostics": [{"line": 1, "code": "SH101"}], "budget": None, "seconds": 0.5}
    cache.put("ab" * 16, entry)
    assert cache.get("ab" * 16) == entry and cache.hits == 1
    path = os.path.join(cache.dir, "entries", "ab", "ab" * 16 + ".json")
    for bad in ("", "{", "[1]", '{"diagnostics": "x"}', "\xff"):
        with open(path, "w", encoding="latin-1") as fh:
            fh.write(bad)
        assert cache.get("ab" * 16) is None
    assert cache.corrupt == 5
    assert open(os.path.join(cache.dir, ".gitignore")).read().strip().endswith("*")
    assert not [f for f in os.listdir(os.path.dirname(path)) if f.startswith(".tmp-")], "no temporary file left"


def test_the_folder_is_bounded_and_keeps_what_was_used_last(tmp_path):
    cache = C.Cache(str(tmp_path / "c"), max_bytes=20_000)
    big = {"diagnostics": [], "pad": "x" * 1000}
    keys = [f"{i:032x}" for i in range(60)]
    for i, k in enumerate(keys):
        cache.put(k, big)
        os.utime(cache._path(k), (1000 + i, 1000 + i))
    os.utime(cache._path(keys[0]), (5000, 5000))  # the oldest, but used last
    assert cache.prune() > 0
    left = [k for k in keys if os.path.exists(cache._path(k))]
    assert sum(os.path.getsize(cache._path(k)) for k in left) <= 20_000
    assert keys[0] in left and keys[1] not in left and keys[-1] in left


def test_the_scan_index_survives_and_a_broken_one_is_ignored(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nfrom .b import c\n")
    project = Project()
    project.uses_torch(str(tmp_path / "a.py"))
    cache = C.Cache(str(tmp_path / "c"))
    cache.save_scans(project.scans, {project.digest(str(tmp_path / "a.py"))})
    again = Project(scans=cache.load_scans())
    assert again.uses_torch(str(tmp_path / "a.py")) and again.scanned == 0
    with open(os.path.join(cache.dir, "scans.json"), "w") as fh:
        json.dump({"x": 3}, fh)
    assert cache.load_scans() == {}
