"""A width no attribute of the instance holds, but one of its parts does: the layer built from it
(`self.exp = nn.Conv2d(c, round_to(c * r, 4), 1)` stores `self.exp.out_channels`) or a module of
the program a few levels down (`self.dw.conv.in_channels`) names it (`analysis/held_sizes.py`),
instead of `?`. Checked against the modules torch builds for several ratios, binding each dotted
name to the attribute the built instance holds."""
import pytest

from shapehint.analysis.api import analyze_source
from .infer_values import named_dims_agree as _agrees

SRC = '''import torch
import torch.nn as nn


def round_to(v, divisor):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBn(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1, groups=cin if cin == cout else 1)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn(self.conv(x))


class Block(nn.Module):
    def __init__(self, cin: int, ratio: float):
        super().__init__()
        wide = round_to(cin * ratio, 4)
        self.exp = nn.Conv2d(cin, wide, 1)
        self.dw = ConvBn(wide, wide, 2)
        self.norm = nn.LayerNorm(round_to(cin * ratio, 8))
        self.swap = nn.Conv2d(wide, round_to(cin * 3.3, 4), 1)
        self.pw = nn.Conv2d(wide, cin, 1)
        self.extra = ConvBn(wide, round_to(cin * 1.7, 4)) if cin > 8 else None

    def again(self, n):
        self.swap = nn.Conv2d(n, n, 1)

    def forward(self, x):
        e = self.exp(x)
        d = self.dw(e)
        s = self.swap(d)
        o = self.pw(d)
        if self.extra is not None:
            q = self.extra(d)
        return o, s


class Net(nn.Module):
    def __init__(self, width_mult: float = 1.0):
        super().__init__()
        self.stem = ConvBn(3, round_to(16 * width_mult, 8), 2)
        self.block = Block(self.stem.conv.out_channels, 2.5)

    def forward(self, x):
        t = self.stem(x)
        o, s = self.block(t)
        return o
'''

RATIOS = [0.25, 0.5, 0.75, 1.0, 1.3]  # (0.25: a stem of 8, so no `extra`)


def _claimed(function):
    values = analyze_source(SRC, "parts.py").infer_json()["values"]
    return {v["name"]: v["shape"] for v in values if v["function"] == function}


def _build(width_mult):
    import torch
    scope = {}
    exec(compile(SRC, "parts.py", "exec"), scope)
    return scope["Net"](width_mult=width_mult).to("meta"), torch


def _ints(module, prefix="self", depth=3) -> dict:
    """`self.a.b.c` -> int, for the int attributes of `module` and its parts `depth` levels down."""
    out = {f"{prefix}.{k}": v for k, v in vars(module).items() if type(v) is int}
    if depth > 1:
        for k, child in module.named_children():
            out.update(_ints(child, f"{prefix}.{k}", depth - 1))
    return out


def test_parts_name_the_widths_they_hold():
    block = _claimed("Block.forward")
    assert block["e"][1] == "self.exp.out_channels"
    assert block["d"][1] == "self.exp.out_channels"  # the same symbol: the shortest path names it
    assert _claimed("Net.forward")["t"][1] == "self.stem.conv.out_channels"
    assert block["q"][1] == "self.extra.conv.out_channels"  # a part or None: named where it is the part


def test_a_part_another_method_replaces_names_nothing():
    assert not any(isinstance(d, str) and d.startswith("self.swap") for d in _claimed("Block.forward")["s"])


def test_a_layer_that_stores_another_value_names_nothing():
    """`nn.LayerNorm(w).normalized_shape` is `(w,)`, not `w`: never a width's name."""
    for shape in _claimed("Block.forward").values():
        assert not any(isinstance(d, str) and "normalized_shape" in d for d in shape), shape


@pytest.mark.parametrize("width_mult", RATIOS)
def test_the_named_shapes_hold_for_every_multiplier(width_mult):
    m, torch = _build(width_mult)
    x = torch.empty(2, 3, 33, 31, device="meta")
    t = m.stem(x)
    env = {f"x.shape[{i}]": d for i, d in enumerate(x.shape)}
    env.update(_ints(m))
    assert _agrees(_claimed("Net.forward")["t"], list(t.shape), env) == 4
    blk = m.block
    e = blk.exp(t)
    d = blk.dw(e)
    seen = {"e": e, "d": d, "o": blk.pw(d)}
    if blk.extra is not None:
        seen["q"] = blk.extra(d)
    env = {f"x.shape[{i}]": n for i, n in enumerate(t.shape)}
    env.update(_ints(blk))
    env["cin"] = blk.exp.in_channels
    claimed = _claimed("Block.forward")
    for name, got in seen.items():
        assert _agrees(claimed[name], list(got.shape), env) == 4, (name, claimed[name])
