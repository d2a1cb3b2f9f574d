"""Custom autograd functions: `Fn.apply(x)` of a class the analysed code derives from
`torch.autograd.Function` returns what its static `forward` returns (the tensors torch wraps
keep their shapes), so the read `Fn.apply` is that `forward`, given a context object first
(`forward(ctx, x)`) — or nothing first when the class sets its context up apart
(`setup_context`, `forward(x)`). The context is a value the analysis does not follow:
`ctx.save_for_backward(x)` decides nothing. `backward` is never run: no shape flows from it
to the forward result. Memory-efficient activations (a layer whose forward is `Fn.apply(x)`)
then keep their input's shape, where before the call was unknown."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import ExtRef, UnknownV, Value
from .objects import ClassObj, FuncObj, PartialV

_FUNCTION = ("torch.autograd.Function", "torch.autograd.function.Function")


def _derives(cls: ClassObj, depth: int = 0) -> bool:
    for b in cls.bases:
        if isinstance(b, ExtRef) and b.path in _FUNCTION:
            return True
        if isinstance(b, ClassObj) and depth < 64 and _derives(b, depth + 1):
            return True
    return False


def apply_of(cls: Value, name: str) -> Optional[Value]:
    """`cls.apply` of an autograd function class whose `forward` is written in Python, else None."""
    if name != "apply" or not isinstance(cls, ClassObj) or cls.lookup("apply") is not None \
            or not _derives(cls):
        return None
    fwd = cls.lookup("forward")
    if not isinstance(fwd, FuncObj):
        return None
    first = () if cls.lookup("setup_context") is not None else (UnknownV("autograd context"),)
    return PartialV(fwd, first, {})
