"""The names a nested function reads (`def _ntuple(n): def parse(x): ... repeat(x, n)`): the
enclosing call's, taken as they are when the `def` runs (as a lambda's are), over the module's
globals. Python binds them late (a name the enclosing function rebinds after the `def` is read
as rebound); the analysis takes the value at the definition, which is the value in the closure
factories and local helpers it meets (`def shape(x): return x.view(bs, -1, h, d)`)."""
from __future__ import annotations


class ClosureScope(dict):
    """A nested function's globals: the enclosing call's names over the module's; `module` is
    the module's own globals, which say whose code the function is (costs.crossing)."""

    __slots__ = ("module",)

    def __init__(self, module: dict, enclosing: dict):
        super().__init__(module)
        self.update(enclosing)
        self.module = module


def module_globals(g: dict) -> dict:
    """The globals of the module whose code a function with globals `g` is."""
    return g.module if isinstance(g, ClosureScope) else g
