"""`torch.nn.init`: the initialisers fill their tensor in place and return it, the same shape.

Those computing fans need a matrix or more; `eye_`/`sparse_` exactly a matrix; `dirac_` a
convolution weight (3 to 5 dimensions). A tensor of unknown rank is not given one here: weight
initialisation loops (`for m in self.modules()`) say nothing about the rank of what they touch.
"""
from __future__ import annotations

from typing import Optional

from ...shapes.values import TensorV
from ..context import NotApplicable, OpContext
from ..registry import op

# name -> the ranks it accepts (None: any)
INITIALISERS = {
    "normal_": None, "uniform_": None, "zeros_": None, "ones_": None, "constant_": None, "trunc_normal_": None,
    "xavier_uniform_": "2+", "xavier_normal_": "2+", "kaiming_uniform_": "2+", "kaiming_normal_": "2+",
    "orthogonal_": "2+", "eye_": (2,), "sparse_": (2,), "dirac_": (3, 4, 5),
}


def _initialiser(name: str, ranks: Optional[object]):
    def rule(cx: OpContext, tensor, *args, **kwargs):
        if not isinstance(tensor, TensorV):
            raise NotApplicable("tensor unknown")
        r = tensor.shape.rank
        if ranks == "2+":
            cx.at_least(tensor, 2, "a tensor")
        elif ranks is not None and r is not None and r not in ranks:
            want = " or ".join(str(k) for k in ranks)
            cx.fail(f"{cx.opname} expects a tensor with {want} dimensions, but {cx.label(tensor)} is {r}D "
                    f"{tensor.shape}", "SH102")
        return tensor  # the same tensor, filled
    rule.__name__ = name
    return rule


for _name, _ranks in INITIALISERS.items():
    op(f"torch.nn.init.{_name}")(_initialiser(_name, _ranks))
