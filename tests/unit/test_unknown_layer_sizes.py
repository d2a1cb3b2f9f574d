"""A size the generic instance's layer was built with that the analysis does not know (a width read
off a configuration object of a list it does not follow) is an int the layer holds: a symbol of
its own (`analysis/unknown_sizes.py`), which the layer's calls require of their inputs, named after
the part that holds it, through a container's position where the part sits in one
(`self.head[1].in_features`, `analysis/held_sizes.py`), and printed under that name where an
unnamed size is equal to it (`hover_facts._pin_held`). Checked against the modules torch builds
for several configurations, binding each name to what the built module holds."""
import pytest

from shapehint.analysis.api import analyze_source
from .infer_values import named_dims_agree as _agrees

SRC = '''from typing import Optional
import torch
from torch import nn


class StageCfg:
    def __init__(self, chans: int, out: Optional[int], depth: int) -> None:
        self.chans = chans
        self.out = out
        self.depth = depth


class Net(nn.Module):
    def __init__(self, setting: list[StageCfg], num_classes: int = 10) -> None:
        super().__init__()
        layers = [nn.Conv2d(3, setting[0].chans, 4, stride=4)]
        for cnf in setting:
            for _ in range(cnf.depth):
                layers.append(nn.Conv2d(cnf.chans, cnf.chans, 3, padding=1))
            if cnf.out is not None:
                layers.append(nn.Conv2d(cnf.chans, cnf.out, 2, stride=2))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        last = setting[-1]
        width = last.out if last.out is not None else last.chans
        self.head = nn.Sequential(nn.Flatten(1), nn.Linear(width, num_classes))
        self.named = nn.ModuleDict({"fc": nn.Linear(width, num_classes)})

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        y = self.head(x)
        return y


class Stack(nn.Module):
    def __init__(self, widths: list) -> None:
        super().__init__()
        blocks = []
        prev = 3
        for w in widths:
            blocks.append(nn.Conv2d(prev, w, 3, padding=1))
            prev = w
        self.body = nn.Sequential(*blocks)
        self.proj = nn.ModuleList([nn.Conv2d(prev, 8, 1)])

    def forward(self, x):
        h = self.body(x)
        p = self.proj[0](h)
        return p
'''

SETTINGS = [[(16, 32, 1), (32, 64, 1), (64, None, 1)], [(8, None, 2)], [(8, 12, 1), (12, 20, 2)]]
WIDTHS = [[4], [4, 6, 10], [16, 16]]


def _claimed(function):
    values = analyze_source(SRC, "sizes.py").infer_json()["values"]
    return {v["name"]: v["shape"] for v in values if v["function"] == function}


def _scope():
    scope = {}
    exec(compile(SRC, "sizes.py", "exec"), scope)
    return scope


def _ints(module, prefix="self", depth=3) -> dict:
    """`self.a[1].b` -> int for the int attributes of `module`'s parts, by name and, in a
    `Sequential` or `ModuleList`, by position."""
    import torch.nn as nn
    out = {f"{prefix}.{k}": v for k, v in vars(module).items() if type(v) is int}
    if depth > 1:
        positional = isinstance(module, (nn.Sequential, nn.ModuleList))
        for i, (k, child) in enumerate(module.named_children()):
            out.update(_ints(child, f"{prefix}.{k}", depth - 1))
            if positional:
                out.update(_ints(child, f"{prefix}[{i}]", depth - 1))
    return out


def test_a_width_of_unknown_value_is_named_after_the_container_part_that_holds_it():
    net = _claimed("Net.forward")
    assert net["x"][1] == "self.head[1].in_features"  # (`?` before: the width came from a list of objects)
    assert _claimed("Stack.forward")["h"][1] == "self.proj[0].in_channels"


def test_no_name_through_a_container_read_by_key_nor_for_layers_a_loop_built():
    for shape in list(_claimed("Net.forward").values()) + list(_claimed("Stack.forward").values()):
        assert not any(isinstance(d, str) and ("self.named" in d or "self.features" in d or "self.body" in d)
                       for d in shape), shape


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_named_shapes_hold_for_every_configuration(setting):
    import torch
    scope = _scope()
    m = scope["Net"]([scope["StageCfg"](*s) for s in setting]).to("meta")
    x = torch.empty(2, 3, 64, 64, device="meta")
    env = {f"x.shape[{i}]": d for i, d in enumerate(x.shape)}
    env.update(_ints(m))
    env["num_classes"] = 10
    feats = m.features(x)
    pooled = m.pool(feats)
    claimed = _claimed("Net.forward")
    assert _agrees(claimed["x"], list(pooled.shape), env) == 4
    assert _agrees(claimed["y"], list(m.head(pooled).shape), env) == 2


@pytest.mark.parametrize("widths", WIDTHS)
def test_the_named_widths_hold_for_every_stack(widths):
    import torch
    m = _scope()["Stack"](widths).to("meta")
    x = torch.empty(2, 3, 9, 7, device="meta")
    env = {f"x.shape[{i}]": d for i, d in enumerate(x.shape)}
    env.update(_ints(m))
    h = m.body(x)
    claimed = _claimed("Stack.forward")
    assert _agrees(claimed["h"], list(h.shape), env) == 4
    assert _agrees(claimed["p"], list(m.proj[0](h).shape), env) == 4
