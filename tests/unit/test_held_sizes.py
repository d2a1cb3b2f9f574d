"""Widths computed through a float multiplier of unknown value (`round_to(32 * width_mult, 8)`,
whose rounding helper adds the divisor on one path) are some int the analysis cannot write down;
where the generic instance holds one as an attribute, the methods print it by that attribute's
name (`analysis/held_sizes.py`): `[B, self.last_width]`, not `[B, ?]`. Each claim is checked
against the model torch builds for several multipliers, binding `self.X` to the instance's
attribute and a context's names to its calling entry's (the names a context prints are its
entry's)."""
import pytest

from shapehint.analysis.api import analyze_source
from .infer_values import named_dims_agree as _agrees

SRC = '''import torch
import torch.nn as nn
import torch.nn.functional as F


def round_to(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Block(nn.Module):
    def __init__(self, cin: int, ratio: float = 1.0):
        super().__init__()
        self.hidden = round_to(cin * ratio, 4)
        self.expand = nn.Conv2d(cin, self.hidden, 1)
        self.project = nn.Conv2d(self.hidden, cin, 1)

    def forward(self, x):
        h = self.expand(x)
        o = self.project(h)
        return o


class Stage(nn.Module):
    def __init__(self, cin: int):
        super().__init__()
        self.stem_width = 7
        self.block = Block(cin, 2.5)

    def forward(self, x):
        z = self.block(x)
        return z


class Net(nn.Module):
    def __init__(self, num_classes: int = 10, width_mult: float = 1.0):
        super().__init__()
        self.stem_width = round_to(32 * width_mult, 8)
        self.last_width = round_to(1280 * max(1.0, width_mult), 8)
        self.counter = int(16 * width_mult)
        self.stem = nn.Conv2d(3, self.stem_width, 3, 2, 1)
        self.block = Block(self.stem_width, 6.0)
        self.stage = Stage(self.stem_width)
        self.head = nn.Conv2d(self.stem_width, self.last_width, 1)
        self.side = nn.Conv2d(3, self.counter, 1)
        self.fc = nn.Linear(self.last_width, num_classes)

    def reset(self):
        self.counter = 4

    def forward(self, x):
        s = self.stem(x)
        b = self.stage(self.block(s))
        h = self.head(b)
        c = self.side(x)
        p = torch.flatten(F.adaptive_avg_pool2d(h, 1), 1)
        y = self.fc(p)
        return y
'''

MULTIPLIERS = [0.25, 0.35, 0.5, 0.75, 1.0, 1.3]


def _values():
    return analyze_source(SRC, "widths.py").infer_json()["values"]


def _claimed(function):
    return {v["name"]: v for v in _values() if v["function"] == function}


def _build(width_mult):
    import torch
    scope = {}
    exec(compile(SRC, "widths.py", "exec"), scope)
    return scope["Net"](num_classes=10, width_mult=width_mult).to("meta"), torch


def _env(x_shape, inst, **more):
    env = {f"x.shape[{i}]": d for i, d in enumerate(x_shape)}
    env.update({f"self.{k}": v for k, v in vars(inst).items() if isinstance(v, int)})
    env.update(more)
    return env


@pytest.mark.parametrize("width_mult", MULTIPLIERS)
def test_the_entry_shapes_hold_for_every_multiplier(width_mult):
    m, torch = _build(width_mult)
    x = torch.empty(2, 3, 33, 31, device="meta")
    s = m.stem(x)
    b = m.stage(m.block(s))
    h = m.head(b)
    seen = {"s": s.shape, "b": b.shape, "h": h.shape, "c": m.side(x).shape,
            "p": torch.flatten(torch.nn.functional.adaptive_avg_pool2d(h, 1), 1).shape}
    seen["y"] = m.fc(torch.empty(seen["p"], device="meta")).shape
    env = _env(x.shape, m, num_classes=10)
    claimed = _claimed("Net.forward")
    for name, observed in seen.items():
        _agrees(claimed[name]["shape"], list(observed), env)
    # every dim of these is known: the widths by their attributes' names
    for name in ("s", "b", "h", "p", "y"):
        assert _agrees(claimed[name]["shape"], list(seen[name]), env) == len(seen[name]), claimed[name]


@pytest.mark.parametrize("width_mult", MULTIPLIERS)
def test_a_block_names_its_own_width_for_each_of_its_instances(width_mult):
    m, torch = _build(width_mult)
    claimed = _claimed("Block.forward")
    for blk in (m.block, m.stage.block):
        x = torch.empty(2, blk.expand.in_channels, 5, 6, device="meta")
        h = blk.expand(x)
        env = _env(x.shape, blk, cin=blk.expand.in_channels)
        assert _agrees(claimed["h"]["shape"], list(h.shape), env) == 4, claimed["h"]
        assert _agrees(claimed["o"]["shape"], list(blk.project(h).shape), env) == 4, claimed["o"]


@pytest.mark.parametrize("width_mult", MULTIPLIERS)
def test_a_context_prints_its_entrys_names(width_mult):
    """Block.forward called through Stage from Net.forward: the context's `self.stem_width`
    would be Stage's 7 read in Stage's names; it is in Net.forward's, the entry's."""
    m, torch = _build(width_mult)
    x = torch.empty(2, 3, 33, 31, device="meta")
    s = m.stem(x)
    inner = m.block(s)
    env = _env(x.shape, m)
    named = 0
    for v in _values():
        for ctx in v.get("contexts", []):
            via = ctx.get("via") or [ctx["context"]]
            if v["function"] == "Block.forward" and via[0].startswith("Net.forward:"):
                blk = m.stage.block if len(via) > 1 else m.block
                h = blk.expand(inner if len(via) > 1 else s)
                observed = {"h": h, "o": blk.project(h)}[v["name"]]
                named += "self.stem_width" in ctx["shape"]
                _agrees(ctx["shape"], list(observed.shape), env)
    assert named == 2


def test_an_attribute_another_method_assigns_keeps_no_name():
    """`reset()` sets `self.counter` again: the instance may hold another value when `forward`
    runs, so the width it was built with is not printed as `self.counter`."""
    c = _claimed("Net.forward")["c"]["shape"]
    assert "self.counter" not in c and c[1] not in (4,)


def test_names_come_only_with_a_held_fresh_size():
    shapes = {k: v["shape"] for k, v in _claimed("Net.forward").items()}
    assert shapes["h"][1] == "self.last_width" and shapes["p"] == ["x.shape[0]", "self.last_width"]
    assert shapes["s"][1] == "self.stem_width"
    # a parameter's symbol keeps the parameter's name
    assert _claimed("Block.forward")["o"]["shape"][1] == "cin"
    assert _claimed("Block.forward")["h"]["shape"][1] == "self.hidden"
