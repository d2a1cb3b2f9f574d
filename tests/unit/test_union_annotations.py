"""Parameters annotated with unions and string annotations (generic._union_param): what the
generic analysis takes them for. `Optional[int]` was a tensor of unknown rank, and so was
`int | tuple[int, int]` (diffusers' `spatial_size`): `isinstance(spatial_size, int)` and
`spatial_size[1]` then read a tensor, and a tensor's index became the size of an `arange`."""
from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.objects import OpaqueV
from shapehint.shapes.values import ListV, NoneV, TensorV, TupleV

SRC = '''import torch
from typing import List, Optional, Tuple, Union


def f(a: int | tuple[int, int], b: Union[int, Tuple[int, int]], c: Optional[int], d: "int",
      e: Optional[torch.Tensor], g: torch.Tensor | None, h: "Optional[torch.Tensor]", k: "List[torch.Tensor]",
      m: Union[torch.Tensor, int], n: Optional[float] = None, ch: list[int] | tuple[int, ...] = ()):
    return a
'''


def test_what_each_union_parameter_is():
    got = analyze_session(SRC, "f.py").interp.param_values["f"]
    assert all(isinstance(got[p], OpaqueV) for p in "abcd"), {p: got[p] for p in "abcd"}
    for p in "egh":  # a tensor that may be None: `if e is not None` runs both ways
        assert isinstance(got[p], TensorV) and got[p].optional, p
    assert isinstance(got["k"], ListV)
    assert isinstance(got["m"], TensorV) and not got["m"].optional  # a tensor or an int: as before
    assert isinstance(got["n"], NoneV)  # defaults are read as they were
    assert isinstance(got["ch"], (ListV, TupleV))


def test_the_none_side_of_an_optional_parameter_is_analysed():
    """`if n is None` was decided False (a tensor is never None): a mistake on that side went
    unseen. Now both sides run, and the one that always fails is reported."""
    src = '''import torch
from typing import Optional
from jaxtyping import Float
from torch import Tensor


def flat(x: Float[Tensor, "2 3"], n: Optional[int], bias: Optional[torch.Tensor]):
    if n is None:
        y = x.view(5)
    else:
        y = x.view(n, -1)
    if bias is None:
        z = x.view(7)
    else:
        z = x + bias
    return y, z
'''
    r = analyze_source(src, "flat.py")
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(9, "SH103"), (13, "SH103")]


def test_a_list_of_ints_parameter_reads_by_index_as_named_values():
    """torchvision's Swin: `window_size: List[int]`; `window_size[0]` was unknown, so every
    reshape by it was too."""
    src = '''import torch
from typing import List, Tuple


def window_partition(x: torch.Tensor, window_size: List[int], pad: Tuple[int, int]):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size[0], window_size[0], W // window_size[1], window_size[1], C)
    windows = x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window_size[0] * window_size[1], C)
    p = torch.zeros(pad[0], pad[1])
    return windows, p
'''
    shapes = {v["name"]: v["shape"] for v in analyze_source(src, "w.py").infer_json()["values"]}
    assert shapes["windows"] == ["B*(H//window_size[0])*(W//window_size[1])", "window_size[0]*window_size[1]", "C"]
    assert shapes["p"] == ["pad[0]", "pad[1]"]
