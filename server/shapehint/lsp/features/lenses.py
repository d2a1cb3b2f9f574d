"""Code lenses: "Run shapes" above each runnable `nn.Module` class and module-level function.

A plain function of the analysis result (no protocol types); the handler turns each lens into
an LSP CodeLens carrying the `shapehint.deviceRun` command for that entry.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Lens:
    line: int  # 1-based line of the `class`/`def` keyword
    col: int
    entry: str  # the device-run entry (class name or function qualname)
    title: str


def run_lenses(result) -> list:
    memo = getattr(result, "memo", None)  # kept when the result drops its interpreter
    return memo("lenses", lambda: _lenses(result)) if memo is not None else _lenses(result)


def _lenses(result) -> list:
    it = getattr(result, "interp", None)
    if it is None:
        return []
    out = []
    for cls in it.classes:
        if cls.node is not None and "." not in cls.qualname and cls.is_module() and cls.lookup("forward") is not None:
            out.append(Lens(cls.node.lineno, cls.node.col_offset, cls.qualname, f"▶ Run shapes: {cls.name}"))
    for f in it.functions:
        if f.cls is None and "." not in f.qualname and not f.node.name.startswith("_"):
            out.append(Lens(f.node.lineno, f.node.col_offset, f.qualname, f"▶ Run shapes: {f.qualname}()"))
    out.sort(key=lambda lens: lens.line)
    return out
