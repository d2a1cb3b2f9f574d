"""What a factory's construction computes, recorded in its sized construction context
(analysis/construction_records.py), checked against torch on CPU.

The program builds a model through factories that hand their `**kwargs` on to a constructor
which overlays them on a dataclass configuration (`replace(cfg, **kwargs)`), so the factories'
own analyses hold the configuration open; the construction contexts hold it at the factory's
values and know the widths the constructor computes (`torch.unique` of a rounded ramp)."""
import functools
import re

import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''from dataclasses import dataclass, replace
import torch
from torch import nn


@dataclass
class Cfg:
    depth: int = 6
    w0: int = 8


CFGS = dict(small=Cfg(depth=6, w0=8), big=Cfg(depth=9, w0=16))


def stage_widths(depth: int, w0: int):
    ws = torch.round(torch.arange(depth, dtype=torch.float32) * 0.35) * 8 + w0
    uniq, counts = torch.unique(ws, return_counts=True)
    return uniq, counts


class Net(nn.Module):
    def __init__(self, cfg: Cfg, num_classes: int = 10, **kwargs):
        super().__init__()
        cfg = replace(cfg, **kwargs)
        widths, counts = stage_widths(cfg.depth, cfg.w0)
        proto = torch.zeros(num_classes, cfg.w0)
        self.register_buffer("proto", proto)
        self.head = nn.Linear(cfg.w0, num_classes)

    def forward(self, x):
        uniq, _ = stage_widths(x.shape[1], 8)
        return self.head(x)


def _create(variant: str, **kwargs):
    return Net(CFGS[variant], **kwargs)


def net_small(**kwargs):
    return _create("small", **kwargs)


def net_big(**kwargs):
    return _create("big", **kwargs)
'''

FACTORIES = ("net_small", "net_big")


@functools.lru_cache(maxsize=None)
def _values():
    return analyze_source(PROGRAM, "prog.py").infer_json()["values"]


def _line(text: str) -> int:
    return next(i for i, ln in enumerate(PROGRAM.splitlines(), 1) if text in ln)


def _constructions(function: str, name: str) -> dict:
    """{factory: [(label, shape)]} of the record's construction labels (`FACTORY:N via ...`)."""
    out: dict = {}
    for v in _values():
        if v["function"] == function and v["name"] == name:
            for c in v.get("contexts") or []:
                m = re.match(r"^(\w+):\d+ via ", c["context"])
                if m and m.group(1) in FACTORIES and not c.get("via"):
                    out.setdefault(m.group(1), []).append((c["context"], c["shape"]))
    return out


def _observed(factory: str, **kwargs) -> dict:
    """The shapes torch gives `stage_widths`'s values while the factory builds the model."""
    import torch
    scope: dict = {}
    exec(compile(PROGRAM, "prog.py", "exec"), scope)
    seen: dict = {}
    orig = scope["stage_widths"]

    def spy(depth, w0):
        ws = torch.round(torch.arange(depth, dtype=torch.float32) * 0.35) * 8 + w0
        uniq, counts = orig(depth, w0)
        for k, t in (("ws", ws), ("uniq", uniq), ("counts", counts)):
            seen.setdefault(k, []).append(list(t.shape))
        return uniq, counts
    scope["stage_widths"] = spy
    scope[factory](**kwargs)
    return seen


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("kwargs", [{}, {"num_classes": 5}])
def test_the_widths_a_construction_computes_are_torchs(factory, kwargs):
    observed = _observed(factory, **kwargs)
    for name in ("ws", "uniq", "counts"):
        claims = _constructions("stage_widths", name).get(factory)
        assert claims, (factory, name)  # (the factory's own analysis holds the configuration open)
        for label, shape in claims:
            assert all(isinstance(d, int) for d in shape), (label, shape)
            assert [shape] == observed[name], (label, shape, observed[name])


def test_a_construction_claims_only_the_path_it_ran():
    """The helper also runs in `forward`, on other sizes: the construction's labels name the
    constructor's call, and the helper's own shape stays its parameters'."""
    init = "Net.__init__:%d" % _line("widths, counts = stage_widths(cfg.depth, cfg.w0)")
    for name in ("ws", "uniq", "counts"):
        for factory, claims in _constructions("stage_widths", name).items():
            for label, _ in claims:
                assert label.startswith("%s:" % factory) and label.endswith(" via " + init), label
    ws = next(v for v in _values() if v["function"] == "stage_widths" and v["name"] == "ws")
    assert ws["shape"] == ["depth"]


def test_a_shape_in_the_factorys_sizes_is_not_claimed():
    """`torch.zeros(num_classes, w0)`: `num_classes` is a size the build may pass, a symbol of the
    factory's that is no name of the constructor's; the construction claims nothing there."""
    assert _constructions("Net.__init__", "proto") == {}
    widths = _constructions("Net.__init__", "widths")
    assert {f: [s for _, s in c] for f, c in widths.items()} == {"net_small": [[3]], "net_big": [[4]]}
