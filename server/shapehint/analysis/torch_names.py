"""What torch is known to provide: feature tests of the installed version
(`_has_silu = 'silu' in dir(torch.nn.functional)`, `hasattr(nn, 'Mish')`) are true where the
rule registry has a rule for that very name, since a rule exists only for what torch defines.
A name without a rule decides nothing: the registry does not cover all of torch, and the
installed version is not known. Libraries pick a torch layer or a fallback of their own on such
a test (`nn.SiLU if _has_silu else Swish`); known, the choice is one class, not a join of two."""
from __future__ import annotations

from typing import Optional

from ..ops import registry
from ..shapes.values import ExtRef, StrV, Value
from .objects import TorchDir


def _torch_path(v: Value) -> Optional[str]:
    if isinstance(v, ExtRef) and (v.path == "torch" or v.path.startswith("torch.")):
        return v.path
    return None


def dir_of(v: Value) -> Optional[TorchDir]:
    path = _torch_path(v)
    return TorchDir(path) if path is not None else None


def provides(module: Value, name: Value) -> Optional[bool]:
    """True when `module` (a torch module, or `dir` of one) has the attribute `name`; None when
    not known."""
    path = module.path if isinstance(module, TorchDir) else _torch_path(module)
    if path is None or not isinstance(name, StrV) or not name.value:
        return None
    return True if registry.lookup(f"{path}.{name.value}") is not None else None
