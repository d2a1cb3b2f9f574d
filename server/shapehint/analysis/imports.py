"""Workspace imports: `from .model import Block`, `import utils`.

A module of the same workspace is found next to the analysed file (relative imports climb
packages). Its body runs once per analysis in the same interpreter, with recording off, so its
classes and functions become real objects: calls into them are analysed with the caller's
shapes, and their errors are reported at the caller's line. Circular imports see the live
namespace of a module still being loaded, as Python does.
"""
from __future__ import annotations

import os
import stat
import threading
import time
from collections import OrderedDict
from typing import Optional

from .frames import Frame
from .objects import ModuleNS

MAX_MODULES = 32
MAX_BYTES = 512 * 1024


# Imported modules' parses, shared by analyses: every analysis of a file runs the modules it
# imports again, and parsing them was a third of that (a 150-line file of trio with 32 sibling
# modules: 0.27 of 0.72 s per edit); the migration's rank search analyses a file again for each
# rank it tries. Parsed trees are never changed, and an entry is used only for the very same
# text. Bounded by source size (a tree takes ~28 bytes per source byte). 8 MB, not 1: a
# repository's shared modules (transformers' modeling_utils, generation/utils, ...) pass 1 MB
# together, and evicting them cost a third of `check`'s CPU time (150 files: 175 -> 110 s), with
# a lower peak RSS (re-parsing churned the allocator more than the kept trees cost).
_PARSED: "OrderedDict[str, tuple]" = OrderedDict()  # path -> (text, ParsedModule), least recent first
_PARSED_LOCK = threading.Lock()
MAX_PARSED_SOURCE = 8 * 1024 * 1024


def parsed_module(path: str, text: str, parse):
    """`parse(text, path)`'s tree, shared while the file's text is unchanged (the parser is the
    caller's: this module is below the engine that knows it)."""
    with _PARSED_LOCK:
        got = _PARSED.get(path)
        if got is not None and got[0] == text:
            _PARSED.move_to_end(path)
            return got[1]
    parsed = parse(text, path)
    with _PARSED_LOCK:
        _PARSED[path] = (text, parsed)
        _PARSED.move_to_end(path)
        total = sum(len(t) for t, _ in _PARSED.values())
        while total > MAX_PARSED_SOURCE and len(_PARSED) > 1:
            _, (old, _) = _PARSED.popitem(last=False)
            total -= len(old)
    return parsed


# Directory listings shared by analyses, each valid while its directory's mtime is unchanged
# (adding, removing or renaming an entry changes it). A listing made within RACY_S of that mtime
# is used once only: on a file system with coarse timestamps a file made in the same tick would
# leave the mtime as it was (git's "racy" entries). One stat of each directory per analysis
# instead of up to nine per import; a listing also matches names case-sensitively, as import does.
_LISTINGS: "OrderedDict[str, tuple]" = OrderedDict()
_LISTINGS_LOCK = threading.Lock()
MAX_LISTINGS = 1024
RACY_S = 2.0
_ABSENT = (False, False)


def _listing(directory: str) -> dict:
    try:
        st = os.stat(directory)
    except (OSError, ValueError):
        return {}
    if not stat.S_ISDIR(st.st_mode):
        return {}
    with _LISTINGS_LOCK:
        got = _LISTINGS.get(directory)
        if got is not None and got[0] == st.st_mtime_ns:
            _LISTINGS.move_to_end(directory)
            return got[1]
    entries: dict = {}
    try:
        with os.scandir(directory) as it:
            for e in it:
                try:
                    entries[e.name] = (e.is_file(), e.is_dir())
                except OSError:  # a broken link
                    continue
    except (OSError, ValueError):
        return {}
    if time.time() - st.st_mtime > RACY_S:
        with _LISTINGS_LOCK:
            _LISTINGS[directory] = (st.st_mtime_ns, entries)
            _LISTINGS.move_to_end(directory)
            while len(_LISTINGS) > MAX_LISTINGS:
                _LISTINGS.popitem(last=False)
    return entries


class Importer:
    def __init__(self, it, root_path: str, root_globals: dict, parse=None):
        self.it = it
        self.parse = parse  # (text, path) -> the parsed module (engine.parse)
        self.base = os.path.dirname(os.path.abspath(root_path)) if root_path and not root_path.startswith("<") else None
        self.loaded: dict[str, ModuleNS] = {}
        self._dirs: dict = {}  # directory -> its entries, for this analysis (`_listing`)
        self._roots: dict = {}  # import level -> the directories searched
        if self.base is not None:
            self.loaded[os.path.abspath(root_path)] = ModuleNS(root_path, root_globals)

    def __call__(self, name: str, level: int) -> Optional[ModuleNS]:
        if self.base is None:
            return None
        path = self.find(name, level)
        if path is None:
            return None
        if path in self.loaded:
            return self.loaded[path]
        if len(self.loaded) >= MAX_MODULES:
            return None
        return self.load(path)

    def find(self, name: str, level: int) -> Optional[str]:
        parts = [p for p in name.split(".") if p]
        if not parts:
            return None
        roots = self._roots.get(level)
        if roots is None:
            base = self.base
            for _ in range(max(level - 1, 0)):
                base = os.path.dirname(base)
            roots = self._roots[level] = [base] if level else [base, os.path.dirname(base),
                                                               os.path.dirname(os.path.dirname(base))]
        *packages, last = parts
        for root in roots:
            if packages and not self._entries(root).get(packages[0], _ABSENT)[1]:
                continue  # no package directory: none of its submodules can be there
            where = os.path.join(root, *packages) if packages else root
            here = self._entries(where)
            # a `.pyi` stub beside the code serves as the summary of a module without source
            if here.get(last + ".py", _ABSENT)[0]:
                return os.path.abspath(os.path.join(where, last + ".py"))
            if here.get(last, _ABSENT)[1] and self._entries(os.path.join(where, last)).get("__init__.py", _ABSENT)[0]:
                return os.path.abspath(os.path.join(where, last, "__init__.py"))
            if here.get(last + ".pyi", _ABSENT)[0]:
                return os.path.abspath(os.path.join(where, last + ".pyi"))
        return None

    def _entries(self, directory: str) -> dict:
        """{name: (is a file, is a directory)} of a directory, looked up once per analysis (every
        `import torch` looks for a workspace `torch` in three places)."""
        got = self._dirs.get(directory)
        if got is None:
            got = self._dirs[directory] = _listing(directory)
        return got

    def load(self, path: str) -> Optional[ModuleNS]:
        try:
            if os.path.getsize(path) > MAX_BYTES:
                return None
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            return None
        parsed = parsed_module(path, text, self.parse)
        self.it.module_lines[path] = parsed.lines
        ns = ModuleNS(path, {})
        self.loaded[path] = ns
        fr = Frame(ns.attrs, "<module>", self.it.new_store(), ns.attrs, record=False)
        fr.foreign = path
        saved = (self.it.path, self.it.lines, self.it.functions, self.it.classes)
        self.it.path, self.it.lines = path, parsed.lines
        # (the imported module's own functions and classes, apart from this module's)
        self.it.functions, self.it.classes = self.it.journal.log("function"), self.it.journal.log("class")
        try:
            self.it.exec_module_body(parsed.tree.body, fr)
        finally:
            self.it.path, self.it.lines, self.it.functions, self.it.classes = saved
        return ns
