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
    """From the result's plain `entries` (module-level modules with a `forward`, public functions)."""
    title = {"class": "▶ Run shapes: {}", "function": "▶ Run shapes: {}()"}
    return sorted((Lens(e.line, e.col, e.qualname, title[e.kind].format(e.name)) for e in result.entries),
                  key=lambda lens: lens.line)
