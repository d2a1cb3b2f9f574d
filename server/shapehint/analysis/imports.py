"""Workspace imports: `from .model import Block`, `import utils`, and the analysed file's own
package (issue 28, cause 6).

A module is found from the directory of the module that imports it (relative imports climb
packages from there): next to it, one or two directories up, and — when the importing file lies
in a package (directories with `__init__.py`) — the directory above the package's top, for that
top package's name only (`from timm.layers import X` in timm/models/m.py, `from pkg.sub import Y`
deep inside pkg). A directory that holds `*.dist-info` entries is an installation
(site-packages, an unpacked wheel): from it only the importing file's own package is followed,
never another library (torch's own source is not workspace code).

A module's body runs once per analysis in the same interpreter, with recording off, so its
classes and functions become real objects: calls into them are analysed with the caller's
shapes, and their errors are reported at the caller's line. Imports at the top level of an
imported module are lazy (`objects.LazyImport`): the module they name loads when the name is
first read (`Importer.resolve`), so a package `__init__` re-exporting a hundred names costs the
modules whose names are used, and a chain of re-exports resolves to the definition. Circular
imports see the live namespace of a module still being loaded, as Python does; a cycle of
re-exports that never reaches a definition is unknown. Past MAX_MODULES modules (the analysed
file's own imports have a bound of their own, so what its imports pull in never starves the
modules it names itself), or for a file
over MAX_BYTES, a name stays unknown (never a guess).
"""
from __future__ import annotations

import os
import stat
import threading
import time
from collections import OrderedDict
from typing import Optional

from .costs import ImportedCosts, outside_caps, within_steps
from .frames import Frame
from . import global_objects, rebound_globals, sealed_dicts, written_lists
from ..shapes.values import ExtRef, UnknownV, Value
from .objects import ClassObj, FuncObj, LazyImport, ModuleNS

_IMPORTED = (ExtRef, ModuleNS, FuncObj, ClassObj)  # what an import binds

# loaded for other modules' imports: a registry read with a key not known loads every module its
# arms name (timm's `get_attn`, 13), and 32 left the block helpers' own modules refused
MAX_MODULES = 64
MAX_DIRECT_MODULES = 32  # loaded for the analysed file's own imports
MAX_BYTES = 512 * 1024
# Steps one imported module's top-level code may take (what it calls included): a package's
# modules compute their environment at import time (which libraries are installed, logging set-up),
# which no shape depends on; the definitions come first in nearly every module.
MODULE_STEPS = 3000
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


def read_alike(vals: list, read, join) -> Optional[Value]:
    """The join of what paths leave in one name when some read an import there and others did not
    (a module's top-level `if` one arm of which reads `torch`): reading resolves the import in its
    own path's names only (`Interp.resolve_import`), so the paths hold the import and what it
    resolved to. Their join is that value when the imports resolve to it (`read`: a lazy import's
    value), else `join` of what they resolved to (`BlockMask` imported where a feature is
    available, else bound to `torch.Tensor`: a choice of the two classes, which `isinstance`
    tests answer when both options answer alike); None when the paths hold anything else. Only
    the kinds an import binds are compared, so no module is loaded for a path that bound the name
    to something else."""
    if not any(type(v) is LazyImport for v in vals) or \
            not all(type(v) is LazyImport or isinstance(v, _IMPORTED) for v in vals):
        return None
    got = [read(v) if type(v) is LazyImport else v for v in vals]
    first = got[0]
    same = all(g is first or isinstance(g, ExtRef) and isinstance(first, ExtRef) and g.path == first.path for g in got)
    if same:
        return first
    return join(got) if not any(type(g) is LazyImport for g in got) else None


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
        _keep(_PARSED, path, (text, parsed), lambda entry: len(entry[0]))
    return parsed


def _keep(cache: OrderedDict, path: str, entry: tuple, size) -> None:
    """`entry` kept as `path`'s, the most recent; the least recent dropped while the texts kept
    (`size(entry)` each) total over MAX_PARSED_SOURCE. The caller holds the cache's lock."""
    cache[path] = entry
    cache.move_to_end(path)
    total = sum(size(e) for e in cache.values())
    while total > MAX_PARSED_SOURCE and len(cache) > 1:
        _, old = cache.popitem(last=False)
        total -= size(old)


# Imported modules' sources, shared by analyses as their parses are, each valid while its file's
# (mtime, size) is unchanged, under the listings' rule for a file changed within RACY_S (below):
# reading and decoding a package's shared modules again for every file (transformers'
# modeling_utils, generation/utils, import_utils, ...: ~1 MB) was ~1 % of `check`'s CPU. The
# texts are the very objects `_PARSED` holds, so `parsed_module`'s comparison is an identity.
_SOURCES: "OrderedDict[str, tuple]" = OrderedDict()  # path -> ((mtime_ns, size), text)
_SOURCES_LOCK = threading.Lock()


def module_source(path: str, max_bytes: Optional[int] = None) -> Optional[str]:
    """The text of the module at `path`; None when it cannot be read, is not UTF-8, or is over
    `max_bytes`."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if max_bytes is not None and st.st_size > max_bytes:
        return None
    key = (st.st_mtime_ns, st.st_size)
    with _SOURCES_LOCK:
        got = _SOURCES.get(path)
        if got is not None and got[0] == key:
            _SOURCES.move_to_end(path)
            return got[1]
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return None
    if time.time() - st.st_mtime > RACY_S:
        with _SOURCES_LOCK:
            _keep(_SOURCES, path, (key, text), lambda entry: len(entry[1]))
    return text


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
        self._dir_of: dict[int, str] = {}  # id(a loaded module's globals) -> its directory
        self._dirs: dict = {}  # directory -> its entries, for this analysis (`_listing`)
        self._roots: dict = {}  # (directory, import level) -> the directories searched
        self._resolving: set = set()  # ids of the LazyImports being resolved (a cycle of re-exports)
        self.costs = ImportedCosts(root_globals)  # what following these modules costs (costs.py)
        self.counts = {True: 0, False: 0}  # modules loaded for the file's own imports, for others'
        self.scanned: list = []  # [globals, tree, whether its top level ran to its end] per module run
        self.cut_stores: dict = {}  # what a cut-off call may store, per function (cut_writes._stores_of)
        if self.base is not None:
            self._register(os.path.abspath(root_path), ModuleNS(root_path, root_globals))

    def _register(self, path: str, ns: ModuleNS) -> None:
        self.loaded[path] = ns
        self._dir_of[id(ns.attrs)] = os.path.dirname(path)

    def directory_of(self, globals_: Optional[dict]) -> Optional[str]:
        """The directory of the module whose globals these are (the analysed file's by default)."""
        return self._dir_of.get(id(globals_), self.base) if globals_ is not None else self.base

    def __call__(self, name: str, level: int, globals_: Optional[dict] = None) -> Optional[ModuleNS]:
        """The module `name` imported (at `level`) by the module whose globals are `globals_`."""
        directory = self.directory_of(globals_)
        direct = globals_ is None or globals_ is self.costs.root_globals
        return None if directory is None else self.load_from(directory, name, level, direct)

    def load_from(self, directory: str, name: str, level: int, direct: bool = False) -> Optional[ModuleNS]:
        path = self.find_from(directory, name, level)
        if path is None:
            return None
        if path in self.loaded:
            return self.loaded[path]
        if self.counts[direct] >= (MAX_DIRECT_MODULES if direct else MAX_MODULES):
            return None
        self.counts[direct] += 1
        return self.load(path)

    # ---- lazy names ---------------------------------------------------------------------
    def lazy(self, globals_: dict, name: str, level: int, attr: Optional[str]) -> Value:
        """What an imported module's top-level `from name import attr` (or `import name`, attr
        None) binds: resolved when first read."""
        directory = self.directory_of(globals_)
        if directory is None:
            return self.unresolved(name, attr)
        return LazyImport(directory, name, level, attr)

    @staticmethod
    def unresolved(name: str, attr: Optional[str]) -> Value:
        """A name from a module that is not in the workspace: an outside reference."""
        if attr is None:
            return ExtRef(name)
        return ExtRef(f"{name}.{attr}" if name else attr)

    def resolve(self, lazy: LazyImport) -> tuple:
        """(the value the import binds, whether it is final). Not final while the module it
        reads from is still loading (a cycle: the name may be defined later), so a later read
        looks again."""
        if id(lazy) in self._resolving:
            return UnknownV(f"{lazy.attr or lazy.module}: a cycle of imports"), True
        self._resolving.add(id(lazy))
        try:
            mod = self.load_from(lazy.directory, lazy.module, lazy.level)
            if lazy.attr is None:
                return (mod if mod is not None else self.unresolved(lazy.module, None)), True
            if mod is None:
                return self.unresolved(lazy.module, lazy.attr), True
            got = mod.attrs.get(lazy.attr)
            if isinstance(got, LazyImport):  # a re-export: follow it to its definition
                got, final = self.resolve(got)
                if final:
                    mod.attrs[lazy.attr] = got
                return got, final
            if got is not None:
                return got, True
            sub = self.load_from(lazy.directory, f"{lazy.module}.{lazy.attr}" if lazy.module else lazy.attr,
                                 lazy.level)
            if sub is not None:
                return sub, True
            return UnknownV(lazy.attr), not mod.loading
        finally:
            self._resolving.discard(id(lazy))

    # ---- finding modules ----------------------------------------------------------------
    def find(self, name: str, level: int) -> Optional[str]:
        """Where module `name` imported at `level` from the analysed file is (None: not in the
        workspace)."""
        return None if self.base is None else self.find_from(self.base, name, level)

    def find_from(self, directory: str, name: str, level: int) -> Optional[str]:
        parts = [p for p in name.split(".") if p]
        if not parts:
            return None
        *packages, last = parts
        for root in self._search_roots(directory, level, parts[0]):
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

    def provides(self, directory: str, top: str) -> bool:
        """Whether the workspace has anything an absolute import of `top` could load (a package,
        a module, a namespace directory, an extension module: optional_imports.absent)."""
        return any(n == top or n.split(".")[0] == top
                   for root in self._search_roots(directory, 0, top) for n in self._entries(root))

    def _search_roots(self, directory: str, level: int, top: str) -> list:
        key = (directory, level)
        roots = self._roots.get(key)
        if roots is None:
            roots = self._roots[key] = self._roots_of(directory, level)
        if level:
            return roots
        # the directory above the package's top serves its own package's name only
        return [r for r, only in roots if only is None or only == top]

    def _roots_of(self, directory: str, level: int) -> list:
        if level:
            for _ in range(level - 1):
                directory = os.path.dirname(directory)
            return [directory]
        near = [directory, os.path.dirname(directory), os.path.dirname(os.path.dirname(directory))]
        roots = [(d, None) for d in dict.fromkeys(near) if not self._is_installation(d)]
        top = self._package_top(directory)
        if top is not None:
            above = os.path.dirname(top)
            if all(r != above for r, _ in roots):
                roots.append((above, os.path.basename(top)))
        return roots

    def _package_top(self, directory: str) -> Optional[str]:
        """The outermost package directory holding `directory` (None: not in a package)."""
        top = None
        while self._entries(directory).get("__init__.py", _ABSENT)[0]:
            top = directory
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
        return top

    def _is_installation(self, directory: str) -> bool:
        return any(n.endswith(".dist-info") and d for n, (_, d) in self._entries(directory).items())

    def _entries(self, directory: str) -> dict:
        """{name: (is a file, is a directory)} of a directory, looked up once per analysis (every
        `import torch` looks for a workspace `torch` in three places)."""
        got = self._dirs.get(directory)
        if got is None:
            got = self._dirs[directory] = _listing(directory)
        return got

    # ---- running a module ---------------------------------------------------------------
    def load(self, path: str) -> Optional[ModuleNS]:
        text = module_source(path, MAX_BYTES)
        if text is None:
            return None
        parsed = parsed_module(path, text, self.parse)
        self.it.module_lines[path] = parsed.lines
        ns = ModuleNS(path, {})
        self._register(path, ns)
        fr = Frame(ns.attrs, "<module>", self.it.new_store(), ns.attrs, record=False)
        fr.foreign = path
        saved = (self.it.path, self.it.lines, self.it.functions, self.it.classes)
        self.it.path, self.it.lines = path, parsed.lines
        # (the imported module's own functions and classes, apart from this module's)
        self.it.functions, self.it.classes = self.it.journal.log("function"), self.it.journal.log("class")
        ns.loading = True
        scan = [ns.attrs, parsed.tree, False]  # (lookup_writers.py: its top level has not all run yet)
        self.scanned.append(scan)
        try:
            # past its share of steps, the rest of its top-level code does not run, and the names
            # that code would bind stay unknown
            ran = outside_caps(self.it, lambda: within_steps(
                self.it, MODULE_STEPS, lambda: self.it.exec_module_body(parsed.tree.body, fr) is None, lambda: False))
            self.it.global_states.append(global_objects.settle_tables(
                sealed_dicts.mark_written(ns.attrs, parsed.tree), self.it.mutated))
            written_lists.forget_written(ns.attrs, parsed.tree)
            rebound_globals.forget_rebound(ns.attrs, parsed.tree, self.it.journal)
            scan[2] = ran
            if ran:
                sealed_dicts.seal(ns.attrs, parsed.tree)
        finally:
            ns.loading = False
            self.it.path, self.it.lines, self.it.functions, self.it.classes = saved
        return ns
