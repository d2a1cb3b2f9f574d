"""A constructor parameter hinted `Union[int, Tuple[int, int]]` (spelled, or through a module
alias) with no default, that the module reads only as a sequence — stored in `self.res` and
zipped, unpacked — is the tuple in the class's own analysis (analysis/hints.py, `int_or_tuple`,
`sequence_only`; generic.py, `_read_as_tuple`): an int would raise at the first read. Before, it
was an opaque value of its name, the zip of it unknown, and every window size after it. A
parameter read as an int anywhere (arithmetic on it, on the attribute, or passed on to a call
that may normalise it) stays as it was. The programs are our own; the shapes claimed are checked
against torch on the meta device."""

import torch

from shapehint.analysis.api import analyze_source

PROGRAM = """\
from typing import Tuple, Union
import torch
from torch import nn

_int_or_tuple = Union[int, Tuple[int, int]]


def to_2tuple(x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x, x)


class Windows(nn.Module):
    def __init__(self, dim: int, res: _int_or_tuple, window: _int_or_tuple = 4):
        super().__init__()
        self.res = res
        self.window = self._fit(window)
        self.proj = nn.Linear(dim, dim)

    def _fit(self, target: Union[int, Tuple[int, int]]):
        target = to_2tuple(target)
        return tuple([r if r <= w else w for r, w in zip(self.res, target)])

    def forward(self, x):
        B, H, W, C = x.shape
        ws = self.window
        y = x.view(B, H // ws[0], ws[0], W // ws[1], ws[1], C)
        return self.proj(y)


class Spelled(nn.Module):
    def __init__(self, dim: int, res: Union[int, Tuple[int, int]]):
        super().__init__()
        self.res = res
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h, w = self.res
        y = x.view(x.shape[0], h, w, -1)
        return self.proj(y)


class ReadAsInt(nn.Module):
    def __init__(self, dim: int, res: _int_or_tuple):
        super().__init__()
        self.res = res
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        if isinstance(self.res, int):
            y = x.view(x.shape[0], self.res, self.res, -1)
        else:
            y = x.view(x.shape[0], self.res[0], self.res[1], -1)
        return self.proj(y)


class PassedOn(nn.Module):
    def __init__(self, dim: int, res: _int_or_tuple):
        super().__init__()
        self.res = to_2tuple(res)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h, w = self.res
        y = x.view(x.shape[0], h, w, -1)
        return self.proj(y)
"""


def _ys():
    r = analyze_source(PROGRAM, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {v["function"].split(".")[0]: v["shape"] for v in r.infer_json()["values"] if v["name"] == "y"}


def _y_of(cls: str, res, x_shape):
    """forward's `y` when the model runs on the meta device (what its `proj` is given)."""
    ns = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    seen = {}
    with torch.device("meta"):
        m = ns[cls](x_shape[-1] if cls == "Windows" else 16, res)
        m.proj.register_forward_hook(lambda mod, args, out: seen.setdefault("y", list(args[0].shape)))
        m(torch.zeros(*x_shape))
    return seen["y"]


def _evaluated(shape, **sizes):
    return [d if isinstance(d, int) else eval(d, {"min": min}, sizes) for d in shape]


def test_a_tuple_read_only_as_a_sequence_gives_the_windows():
    got = _ys()["Windows"]
    assert got == ["B", "H//min(res[0], window)", "min(res[0], window)", "W//min(res[1], window)",
                   "min(res[1], window)", "C"]
    for res, window, x_shape in (((8, 8), 4, (2, 8, 8, 16)), ((2, 8), 4, (1, 2, 8, 16))):
        sizes = {"B": x_shape[0], "H": x_shape[1], "W": x_shape[2], "C": x_shape[3],
                 "res": res, "window": window}
        assert _y_of("Windows", res, x_shape) == _evaluated(got, **sizes)


def test_a_spelled_union_unpacked_is_the_tuple():
    got = _ys()["Spelled"]
    assert got[:3] == ["x.shape[0]", "h", "w"]
    assert _y_of("Spelled", (4, 2), (3, 4 * 2 * 16))[:3] == [3, 4, 2]


def test_a_union_read_as_an_int_or_passed_on_is_not_taken_for_the_tuple():
    ys = _ys()
    # `isinstance(self.res, int)` reads it as what it may be: both readings stay open, the int arm
    # with the int, the other with its items (an item of a value known by name is named by it)
    arms = [v["shape"] for v in analyze_source(PROGRAM, "m.py").infer_json()["values"]
            if v["name"] == "y" and v["function"] == "ReadAsInt.forward"]
    assert arms == [["x.shape[0]", "res", "res", "?"], ["x.shape[0]", "res[0]", "res[1]", "?"]]
    assert "res[0]" not in str(ys.get("PassedOn"))
    assert _y_of("ReadAsInt", 4, (2, 4 * 4 * 16))[:3] == [2, 4, 4]
    assert _y_of("ReadAsInt", (4, 2), (2, 4 * 2 * 16))[:3] == [2, 4, 2]  # the tuple arm's res[0], res[1]
    assert _y_of("PassedOn", 4, (2, 4 * 4 * 16))[:3] == [2, 4, 4]
