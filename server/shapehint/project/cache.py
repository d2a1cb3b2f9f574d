"""The persistent cache of `shapehint check` (and the language server's files not open).

Terms
  key    a hash of everything one file's diagnostics depend on: the analyzer (package version
         plus a hash of its own source and data files, rule tables included), the configuration
         that reaches the analysis, the file's absolute path and content, and the path and
         content of every workspace file in its import closure (`deps.Project.closure`).
         The analysis follows no installed package's source (`analysis/imports.py` finds
         modules next to the analysed file only), so none is part of the key.
  entry  `entries/KK/KEY.json`: the diagnostics (JSON, after the configuration and suppression
         comments were applied), the seconds the analysis took, and the per-file time budget
         it ran out of, if any.
  scans  `scans.json`: file digest -> its import scan, so an unchanged repository is not
         scanned again.

Invariants
  - Writes go to a temporary file in the same folder and are renamed into place
    (`os.replace`), so two runs sharing the cache never see half an entry; the last writer wins
    and both wrote the same answer.
  - An entry that cannot be read or decoded is a miss: the file is analysed again and the
    entry rewritten.
  - The cache is bounded (`max_bytes`): past it, the least recently used entries (by mtime,
    which a hit refreshes) go first.
  - The folder holds a `.gitignore` of `*` and a `CACHEDIR.TAG`, as ruff's and mypy's do.

Tests: tests/unit/test_project_cache.py, tests/unit/test_check_repo.py.
"""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import threading
from functools import lru_cache
from typing import Optional

from . import scan as scanmod
from .deps import Project, digest_bytes

DIR_NAME = ".shapehint_cache"
MAX_BYTES = 256 * 1024 * 1024
FORMAT = 1  # bump when an entry's layout changes
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# ShapeHint's cache (shapehint check); see https://bford.info/cachedir/\n"


_NOT_ANALYSIS = ("lsp", "devicerun", "questions", "project")


@lru_cache(maxsize=None)
def analyzer_version() -> str:
    """The package version plus a hash of every source and data file of the analyzer (the
    shared data, rule tables and messages included): any change to them invalidates every
    entry. What only serves other commands (`_NOT_ANALYSIS`, cli.py) is left out, so the
    language server and `check` of one version agree on keys."""
    from .. import __version__
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [f"{__version__}/{FORMAT}".encode()]
    for root, dirs, files in os.walk(package, followlinks=True):
        if root == package:  # what answers no check: the editor, the device run, the questions, ...
            dirs[:] = [d for d in dirs if d not in _NOT_ANALYSIS]
            files = [f for f in files if f in ("__init__.py", "config.py", "gc_policy.py")]
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "examples"))
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                path = os.path.join(root, name)
                try:
                    with open(path, "rb") as fh:
                        parts.append(os.path.relpath(path, package).encode() + b"\0" + fh.read())
                except OSError:
                    continue
    return digest_bytes(b"\0\0".join(parts))


def config_fingerprint(config) -> str:
    """What of the configuration reaches a file's diagnostics (not where it came from)."""
    if config is None:
        return "default"
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)
              if f.name not in ("root", "problems", "include", "exclude")}
    return repr(sorted((k, sorted(v) if isinstance(v, (set, frozenset)) else v) for k, v in fields.items()))


def file_key(project: Project, path: str, config) -> str:
    parts = [analyzer_version(), config_fingerprint(config)] + project.fingerprint(path)
    return digest_bytes("\n".join(parts).encode("utf-8"))


def default_dir(paths) -> str:
    """`.shapehint_cache` in the project root: the folder of the nearest pyproject.toml above
    the first path, else the folder of the first path (or the path itself, a folder)."""
    from ..config import find_pyproject
    first = os.path.abspath(paths[0]) if paths else os.getcwd()
    start = first if os.path.isdir(first) else os.path.dirname(first)
    found = find_pyproject(start)
    return os.path.join(os.path.dirname(found) if found else start, DIR_NAME)


class Cache:
    def __init__(self, directory: str, max_bytes: int = MAX_BYTES):
        self.dir = os.path.abspath(directory)
        self.max_bytes = max_bytes
        self.hits = self.misses = self.corrupt = self.writes = 0
        self._lock = threading.Lock()
        self._ready = False

    # ---- entries -------------------------------------------------------------------------

    def _path(self, key: str) -> str:
        return os.path.join(self.dir, "entries", key[:2], key + ".json")

    def get(self, key: str) -> Optional[dict]:
        path = self._path(key)
        try:
            with open(path, encoding="utf-8") as fh:
                entry = json.load(fh)
            if not (isinstance(entry, dict) and isinstance(entry.get("diagnostics"), list)):
                raise ValueError("not an entry")
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, UnicodeDecodeError):
            self.corrupt += 1
            self.misses += 1
            return None
        try:
            os.utime(path)  # recently used: pruned last
        except OSError:
            pass
        self.hits += 1
        return entry

    def put(self, key: str, entry: dict) -> None:
        self._write(self._path(key), json.dumps(entry, separators=(",", ":")))
        self.writes += 1

    # ---- scans ---------------------------------------------------------------------------

    def load_scans(self) -> dict:
        try:
            with open(os.path.join(self.dir, "scans.json"), encoding="utf-8") as fh:
                raw = json.load(fh)
            make = scanmod.Import._make
            return {d: scanmod.Scan(t, tuple(map(make, imps))) for d, (t, imps) in raw.items()}
        except (OSError, ValueError, TypeError, UnicodeDecodeError):
            return {}

    def save_scans(self, scans: dict, keep: set) -> None:
        """The scans of the digests in `keep` (the files this run read), so the index does not
        grow with every version of every file."""
        raw = {d: [s.torch, [[i.name, i.level, i.in_function] for i in s.imports]]
               for d, s in scans.items() if d in keep}
        self._write(os.path.join(self.dir, "scans.json"), json.dumps(raw, separators=(",", ":")))

    # ---- the folder ----------------------------------------------------------------------

    def _write(self, path: str, data: str) -> None:
        """Atomically (a temporary file renamed into place); a cache that cannot be written is
        no error, the run just does not leave its answers behind."""
        try:
            self._prepare()
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            pass

    def _prepare(self) -> None:
        with self._lock:
            if self._ready:
                return
            os.makedirs(self.dir, exist_ok=True)
            for name, text in ((".gitignore", "# Created by shapehint automatically.\n*\n"), ("CACHEDIR.TAG", _TAG)):
                target = os.path.join(self.dir, name)
                if not os.path.exists(target):
                    with open(target, "w", encoding="utf-8") as fh:
                        fh.write(text)
            self._ready = True

    def prune(self) -> int:
        """Remove the least recently used entries while the cache is over its bound; returns
        how many went."""
        entries = []
        total = 0
        root = os.path.join(self.dir, "entries")
        try:
            shards = os.listdir(root)
        except OSError:
            return 0
        for shard in shards:
            try:
                with os.scandir(os.path.join(root, shard)) as it:
                    for e in it:
                        try:
                            st = e.stat()
                        except OSError:
                            continue
                        entries.append((st.st_mtime, st.st_size, e.path))
                        total += st.st_size
            except OSError:
                continue
        removed = 0
        if total <= self.max_bytes:
            return 0
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 0.8:  # some room, so the next run does not prune again
                break
            try:
                os.unlink(path)
                total -= size
                removed += 1
            except OSError:
                pass
        return removed
