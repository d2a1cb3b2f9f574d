"""Imported modules' sources are read once while their file's (mtime, size) is unchanged, shared
by the analyses of every file that imports them (imports.module_source), with the listings' rule
for a file changed within RACY_S: not kept, so an edit in the same tick is never missed."""
import os
import time

from shapehint.analysis import imports
from shapehint.analysis.api import analyze_source

from .test_import_parses import LAYERS, MODEL  # (the same two-module program)


def _age(path, seconds: float = 10.0) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_an_old_file_is_read_once(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("x = 1\n")
    _age(f)
    first = imports.module_source(str(f))
    assert first == "x = 1\n"
    assert imports.module_source(str(f)) is first  # the kept text, not a second read


def test_a_changed_file_is_read_again(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("x = 1\n")
    _age(f, 20.0)
    assert imports.module_source(str(f)) == "x = 1\n"
    f.write_text("x = 2\n")  # the same size: only the mtime tells
    _age(f, 10.0)
    assert imports.module_source(str(f)) == "x = 2\n"


def test_a_file_changed_just_now_is_not_kept(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("x = 1\n")  # mtime: now
    assert imports.module_source(str(f)) == "x = 1\n"
    assert str(f) not in imports._SOURCES
    # a same-size edit within the same timestamp tick would leave (mtime, size) as they were
    t = os.stat(f).st_mtime_ns
    f.write_text("x = 2\n")
    os.utime(f, ns=(t, t))
    assert imports.module_source(str(f)) == "x = 2\n"


def test_too_large_unreadable_and_missing(tmp_path):
    f = tmp_path / "big.py"
    f.write_text("x = 1\n" * 10)
    _age(f)
    assert imports.module_source(str(f), max_bytes=10) is None
    assert imports.module_source(str(f)) is not None  # (the limit is the caller's)
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = '\xff'\n")
    _age(bad)
    assert imports.module_source(str(bad)) is None
    assert imports.module_source(str(tmp_path / "absent.py")) is None


def test_an_edited_import_changes_the_answer(tmp_path):
    layers = tmp_path / "layers.py"
    layers.write_text(LAYERS.format(n=8))
    _age(layers, 20.0)
    _age(tmp_path, 20.0)
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    codes = lambda: [d.code for d in analyze_source(MODEL, str(model)).diagnostics]  # noqa: E731
    assert codes() == []
    assert str(layers.resolve()) in imports._SOURCES
    layers.write_text(LAYERS.format(n=9))  # in_features 8 -> 9: the call in model.py now fails
    _age(layers, 10.0)
    assert "SH101" in codes()
