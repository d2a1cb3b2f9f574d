"""`workspace/diagnostic`: the diagnostics of workspace files that are not open, served from the
cache `shapehint check` fills (project/cache.py), never by analysing them.

Opening a large repository must not re-analyse the world: a file that is not open is looked up
under the same key the CLI uses (its content and import closure, the analyzer, the effective
configuration), in the same folder (`.shapehint_cache` at the project root). A file with no
entry gets no report (run `shapehint check` to fill the cache); a file that does not use
PyTorch gets an empty one. Open files are left to `textDocument/diagnostic`, which analyses
their current text.

`STATS` counts what was served (the debug command `shapehint.debug.stats` shows it), so a test
can tell that the answers came from the cache while the worker's `analyses` stayed unchanged.
Tests: tests/lsp/test_workspace_diagnostics.py.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Callable, Iterable

STATS: Counter = Counter()

_SKIP_DIRS = ("node_modules", "__pycache__")


def python_files(root: str) -> list:
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        found += [os.path.join(folder, f) for f in sorted(files) if f.endswith((".py", ".pyi"))]
    return found


def from_json(d: dict):
    """An analysis Diagnostic from its JSON form (the cache keeps JSON)."""
    from ..analysis.result import Diagnostic, Related
    related = [Related(r["line"], r["col"], r["message"], r.get("file")) for r in d.get("related", [])]
    return Diagnostic(d["line"], d["col"], d["end_line"], d["end_col"], d["severity"], d["code"],
                      d["message"], related)


def cached_reports(roots: Iterable[str], open_paths: set, config_for: Callable) -> list:
    """[(path, text, [Diagnostic])] for every workspace file not open that has an answer in
    the cache (or needs none: it does not use PyTorch). Runs off the event loop (it reads the
    files)."""
    from ..project.cache import Cache, default_dir, file_key
    from ..project.deps import Project
    out = []
    for root in roots:
        cache = Cache(default_dir([root]))
        project = Project(scans=cache.load_scans())
        for path in python_files(root):
            path = os.path.abspath(path)
            if path in open_paths:
                continue
            config = config_for(path)
            if not config.is_included(path):
                continue
            text = project.text(path)
            if text is None:
                continue
            if not project.uses_torch(path):
                out.append((path, text, []))
                STATS["not_torch"] += 1
                continue
            entry = cache.get(file_key(project, path, config))
            if entry is None:
                STATS["not_cached"] += 1
                continue
            out.append((path, text, [from_json(d) for d in entry["diagnostics"]]))
            STATS["from_cache"] += 1
    return out


def roots_of(ls) -> list:
    """The workspace folders' paths (the root path when the client sent no folders)."""
    from pygls import uris
    folders = [uris.to_fs_path(f.uri) for f in getattr(ls.workspace, "folders", {}).values()]
    roots = [f for f in folders if f] or [ls.workspace.root_path]
    return [r for r in roots if r and os.path.isdir(r)]


def report(ls, found: list):
    """The LSP report of `cached_reports`' answers."""
    from lsprotocol import types as lsp
    from pygls import uris

    from ..analysis.codes import docs_url
    from .convert import Lines, diagnostic
    items = []
    for path, text, diags in found:
        uri = uris.from_fs_path(path) or path
        lines = Lines(text, ls.encoding)
        items.append(lsp.WorkspaceFullDocumentDiagnosticReport(
            uri=uri, version=None, items=[diagnostic(d, lines, uri, docs_url) for d in diags]))
    return lsp.WorkspaceDiagnosticReport(items=items)
