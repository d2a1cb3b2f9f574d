"""Which workspace files a file's answer depends on, and whether a file uses PyTorch at all.

Terms
  digest     a hash of a file's bytes; a file's scan (`scan.py`) is a function of its digest.
  closure    every workspace file a file may import, directly or through others, found with the
             analysis's own module resolution (`analysis.imports.Importer.find`): an analysis
             runs the bodies of the modules it imports, so its answer depends on their text.
             Function-level imports are followed too (the analysis runs function bodies).
  uses torch (DESIGN §3; issue 25, semantics 5) a file uses PyTorch when it imports torch
             anywhere outside `if TYPE_CHECKING:`, or imports at module level, directly or
             through other workspace modules imported at module level, a workspace module whose
             top-level code imports torch unconditionally. A file that does not use PyTorch
             gets no analysis: its functions' parameters would be taken for tensors, and
             TensorFlow or JAX code would get shape errors that mean nothing.

             The transitive part follows only unconditional top-level imports of torch: a
             helper that imports torch under `if is_torch_available():` is imported by nearly
             every file of a library that supports several frameworks, and would make every
             configuration and TensorFlow file count.

This is the one definition: `shapehint check`, `infer` and the language server all ask
`uses_torch`. Tests: tests/unit/test_project_deps.py.
"""
from __future__ import annotations

import hashlib
import os
from typing import Optional

from . import scan as scanmod

_HASH_BYTES = 16


def digest_bytes(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=_HASH_BYTES).hexdigest()


class Project:
    """Files read once per run (or per request), their scans and import edges, memoised.

    `texts` overrides what is on disk (an editor's unsaved documents, a file the CLI already
    read); `scans` maps digests to scans known from an earlier run (the cache persists it)."""

    def __init__(self, texts: Optional[dict] = None, scans: Optional[dict] = None):
        self._texts = {os.path.abspath(p): t for p, t in (texts or {}).items()}
        self.scans = scans if scans is not None else {}
        self._digest: dict = {}
        self._edges: dict = {}
        self._closure: dict = {}
        self._torch: dict = {}
        self._found: dict = {}  # (directory, module name, level) -> file or None
        self._finders: dict = {}
        self.scanned = 0  # scans computed (not found in `scans`), for --statistics and tests

    def set_text(self, path: str, text: str) -> None:
        path = os.path.abspath(path)
        self._texts[path] = text
        self._digest.pop(path, None)
        for memo in (self._edges, self._closure, self._torch):  # others' answers may change too
            memo.clear()

    def text(self, path: str) -> Optional[str]:
        """The file's text (None when it cannot be read or decoded)."""
        return self._text_of(os.path.abspath(path))

    def digest(self, path: str) -> str:
        """Of the decoded text, so a file read here and the same file given by an editor or the
        CLI (`read_source` drops a BOM) have the same digest."""
        return self._digest_of(os.path.abspath(path))

    def scan(self, path: str) -> scanmod.Scan:
        return self._scan_of(os.path.abspath(path))

    def read_paths(self) -> list:
        """The files this project has the text of (read from disk or given)."""
        return [p for p, t in self._texts.items() if t is not None]

    def fingerprint(self, path: str) -> list:
        """[path, digest] of the file and of every file in its closure: what its answer reads."""
        path = os.path.abspath(path)
        out = [path, self._digest_of(path)]
        for dep in self.closure(path):
            out += [dep, self._digest_of(dep)]
        return out

    # the same on absolute paths (what every internal caller has): abspath is most of the cost
    # of a warm run's thousands of lookups

    def _text_of(self, path: str) -> Optional[str]:
        if path not in self._texts:
            try:
                with open(path, "rb") as fh:
                    self._texts[path] = fh.read().decode("utf-8-sig")
            except (OSError, UnicodeDecodeError):
                self._texts[path] = None
        return self._texts[path]

    def _digest_of(self, path: str) -> str:
        got = self._digest.get(path)
        if got is None:
            text = self._text_of(path)
            got = self._digest[path] = digest_bytes(b"\0" if text is None else text.encode("utf-8"))
        return got

    def _scan_of(self, path: str) -> scanmod.Scan:
        d = self._digest_of(path)
        got = self.scans.get(d)
        if got is None:
            text = self._text_of(path)
            got = self.scans[d] = scanmod.scan(text) if text is not None else scanmod.Scan(scanmod.NONE, ())
            self.scanned += 1
        return got

    def imports(self, path: str) -> list:
        """[(imported file, only inside a function)] of the workspace modules `path` imports."""
        return self._imports(os.path.abspath(path))

    def _imports(self, path: str) -> list:
        got = self._edges.get(path)
        if got is None:
            got, seen = [], set()
            directory = os.path.dirname(path)
            for imp in self._scan_of(path).imports:
                target = self._find(directory, imp.name, imp.level)
                if target is not None and target != path and (target, imp.in_function) not in seen:
                    seen.add((target, imp.in_function))
                    got.append((target, imp.in_function))
            self._edges[path] = got
        return got

    def _find(self, directory: str, name: str, level: int) -> Optional[str]:
        """Where the analysis finds module `name` imported from a file in `directory`: the same
        for every file there, so asked once per directory."""
        key = (directory, name, level)
        if key not in self._found:
            finder = self._finders.get(directory)
            if finder is None:
                from ..analysis.imports import Importer
                finder = self._finders[directory] = Importer(None, os.path.join(directory, "_"), {}).find
            self._found[key] = finder(name, level)
        return self._found[key]

    def closure(self, path: str) -> tuple:
        """Every file `path`'s analysis may read besides itself, sorted."""
        path = os.path.abspath(path)
        got = self._closure.get(path)
        if got is None:
            got = self._closure[path] = tuple(sorted(self._reach(path, module_level_only=False) - {path}))
        return got

    def _reach(self, path: str, module_level_only: bool) -> set:
        seen, todo = {path}, [path]
        while todo:
            for target, in_function in self._imports(todo.pop()):
                if target not in seen and not (module_level_only and in_function):
                    seen.add(target)
                    todo.append(target)
        return seen

    def uses_torch(self, path: str) -> bool:
        path = os.path.abspath(path)
        got = self._torch.get(path)
        if got is None:
            got = self._scan_of(path).torch != scanmod.NONE or any(
                self._scan_of(other).torch == scanmod.AT_IMPORT
                for other in self._reach(path, module_level_only=True) if other != path)
            self._torch[path] = got
        return got


def uses_torch(path: str, text: Optional[str] = None) -> bool:
    """Whether the file at `path` (with `text` in place of what is on disk) uses PyTorch."""
    project = Project({path: text} if text is not None else None)
    return project.uses_torch(path)
