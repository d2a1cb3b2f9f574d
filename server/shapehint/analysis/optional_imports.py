"""Optional imports: `try: from fastlib import FusedNorm as Norm  except ImportError: pass`.

Policy (issue 28): an import is taken to fail — it raises ImportError there — when the analysis'
world has no such module: its top-level package is neither in the workspace (the roots the
importer searches: a package, a module, a namespace directory, an extension module) nor
installed where the analysis runs (`importlib.util.find_spec`), nor the standard library, nor a
library whose operations the rules know (torch, even where the server runs without it). Only an
import inside a `try` whose handler catches ImportError is judged this way (elsewhere it binds an
outside reference, as before); the handler that catches it runs from that point, so the names the
body would have rebound keep their earlier bindings — the code's own fallback, which the analysis
can follow, instead of a join with a library it cannot see. Relative imports are never judged
absent (a compiled submodule has no source to find). Whether a package is installed is part of
the analysis' environment, like the Python version: the cache does not key on it.
"""
from __future__ import annotations

import ast
import importlib.util
import sys
from typing import Optional

# handlers that catch an ImportError (a bare `except:` too)
_IMPORT_ERROR_CATCHERS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_INSTALLED: dict = {}  # top-level name -> whether the analysis' Python finds it (once per process)


def catches_import_error(t: Optional[ast.expr]) -> bool:
    if t is None:
        return True
    if isinstance(t, ast.Tuple):
        return any(catches_import_error(e) for e in t.elts)
    name = t.attr if isinstance(t, ast.Attribute) else t.id if isinstance(t, ast.Name) else None
    return name in _IMPORT_ERROR_CATCHERS


def import_handler(handlers: list) -> Optional[ast.ExceptHandler]:
    """The handler that catches an ImportError raised in the body (the first that matches)."""
    return next((h for h in handlers if catches_import_error(h.type)), None)


def absent(name: str, level: int, importer, directory: Optional[str], known_roots) -> bool:
    """Whether importing module `name` (at `level`) fails in the analysis' world."""
    top = name.split(".")[0] if name else ""
    if level or not top:
        return False
    if top in known_roots or top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return False
    if importer is not None and directory is not None and importer.provides(directory, top):
        return False
    return not installed(top)


def installed(top: str) -> bool:
    got = _INSTALLED.get(top)
    if got is None:
        try:  # (a top-level name: find_spec imports nothing to answer)
            got = importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):
            got = False
        _INSTALLED[top] = got
    return got
