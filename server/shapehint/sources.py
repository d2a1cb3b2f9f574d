"""Reading the files the commands analyse: one clear line (`UsageError`) for a path that cannot
be read, the size caps, the folder's configuration, and the analysis of one file or notebook with
the configuration applied. Below the commands (cli.py, questions/, project/), which all share it."""
from __future__ import annotations

import os
import sys
from typing import Iterable, Optional

DEFAULT_MAX_KB = 2048
# A notebook file carries its outputs (plots as base64): the size cap applies to its code cells,
# and the file itself may be this large.
NOTEBOOK_FILE_MAX_KB = 256 * 1024


class UsageError(Exception):
    pass


def load_config_for(path: str):
    try:
        from .config import load_config
    except ImportError:
        return None
    try:
        return load_config(os.path.dirname(os.path.abspath(path)) or ".")
    except Exception as e:  # an invalid pyproject must not stop the check
        sys.stderr.write(f"shapehint: ignoring configuration: {e}\n")
        return None


def read_source(path: str, max_kb: int = DEFAULT_MAX_KB) -> Optional[str]:
    """The file's text; raises UsageError with one clear line; None when over the size cap."""
    if os.path.islink(path) and not os.path.exists(path):
        raise UsageError(f"{path}: broken or looping symbolic link")
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory (shapehint check accepts directories)")
    try:
        size = os.path.getsize(path)
        if size > max_kb * 1024:
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except PermissionError:
        raise UsageError(f"{path}: permission denied")
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror or e})")
    if b"\x00" in data[:8192]:
        raise UsageError(f"{path}: looks like a binary file, not Python source")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not valid UTF-8 (byte {e.start})")


def expand_paths(paths: Iterable[str], errors: list) -> list:
    out = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for root, dirs, files in os.walk(p, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith((".py", ".pyi", ".ipynb"))]
            out.extend(found)
        elif os.path.islink(p) and not os.path.exists(p):
            errors.append(f"{p}: broken or looping symbolic link")
        elif not os.path.exists(p):
            errors.append(f"{p}: no such file or directory")
        else:
            out.append(p)
    return out


def analyze_path(path: str, text: str, config, records: bool = True, functions=None, compile_errors: bool = True):
    """The `AnalysisSession` of one file, its result's diagnostics after the configuration."""
    from .analysis.api import analyze_session
    session = analyze_session(text, path, config=config, records=records, functions=functions,
                              compile_errors=compile_errors)
    try:
        from .config import apply_config
        session = session.replacing(diagnostics=apply_config(session.result.diagnostics, text, config))
    except ImportError:
        pass
    return session


def analyze_notebook(path: str, text: str, config, records: bool = True, max_kb: int = DEFAULT_MAX_KB):
    """(session, joined): the notebook's code cells analysed as one module (notebook.py); the
    result's diagnostics are in module lines, `joined` maps them to cells. None when the code
    cells together are over the size cap."""
    from . import notebook
    try:
        joined = notebook.load(path, text)
    except notebook.NotebookError as e:
        raise UsageError(f"{path}: {e}")
    if len(joined.text.encode("utf-8")) > max_kb * 1024:
        return None
    session = analyze_path(path, joined.text, config, records=records)
    diagnostics = sorted(notebook.cell_diagnostics(joined) + list(session.result.diagnostics),
                         key=lambda d: (d.line, d.col))
    return session.replacing(diagnostics=diagnostics), joined
