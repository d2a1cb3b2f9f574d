"""Dicts an undecided `if`'s arms write in place (analysis/arm_dicts.py). Both arms write the one
dict, and the last writer used to win: `if nxt > self.output_stride: ba['stride'] = 1` left
`stride = 1` past the `if` whatever the test, so a builder's stride-2 blocks were claimed of
stride 1 (`[B, 8, H, W]` where torch gives `[B, 8, H/4, W/4]`). Past the `if` each key holds the
join of what the arms left there; a key one arm alone added holds a value not known. Every claim is
checked against torch on the meta device, for builds that take each arm. (`built_two` takes
the output stride as its own size: left to its `**kwargs`, the factory's sized context would hold
it at its default, as `Built` hands it to a builder that compares it, deciding_ints.handed_on.)"""
import re

import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Rewritten(nn.Module):
    def __init__(self, limit=32):
        super().__init__()
        d = dict(s=2)
        if limit > 4:
            d['s'] = 1
        self.conv = nn.Conv2d(8, 8, 3, stride=d['s'], padding=1)

    def forward(self, x):
        x = self.conv(x)
        return x


class Flagged(nn.Module):
    def __init__(self, flag: bool = False):
        super().__init__()
        d = dict(s=2)
        if flag:
            d['s'] = 1
        self.conv = nn.Conv2d(8, 8, 3, stride=d['s'], padding=1)

    def forward(self, x):
        x = self.conv(x)
        return x


class Alike(nn.Module):
    def __init__(self, limit=32):
        super().__init__()
        d = dict(s=2)
        if limit > 4:
            d['k'] = 3
        else:
            d['k'] = 3
        self.conv = nn.Conv2d(8, 8, d['k'], stride=d['s'], padding=1)

    def forward(self, x):
        x = self.conv(x)
        return x


class Added(nn.Module):
    def __init__(self, limit=32):
        super().__init__()
        d = dict(s=1)
        if limit > 4:
            d['p'] = 2
        self.conv = nn.Conv2d(8, 8, 3, stride=d['s'], padding=d.get('p', 0))

    def forward(self, x):
        x = self.conv(x)
        return x


class Builder:
    def __init__(self, output_stride=32):
        self.output_stride = output_stride

    def __call__(self, stage_args):
        current = 2
        layers = []
        for ba in stage_args:
            if ba['stride'] > 1:
                nxt = current * ba['stride']
                if nxt > self.output_stride:
                    ba['stride'] = 1
                else:
                    current = nxt
            layers.append(nn.Conv2d(8, 8, 3, stride=ba['stride'], padding=1))
        return layers


class Built(nn.Module):
    def __init__(self, stage_args, output_stride=32):
        super().__init__()
        self.blocks = nn.Sequential(*Builder(output_stride)(stage_args))

    def forward(self, x):
        x = self.blocks(x)
        return x


def built_two(output_stride=32, **kwargs):
    return Built([dict(stride=2), dict(stride=2)], output_stride, **kwargs)
'''

H = 32


def _values():
    return analyze_source(PROGRAM, "armdicts.py").infer_json()["values"]


def _x(values, cls):
    hit = [v for v in values if v["function"] == cls + ".forward" and v["name"] == "x"]
    return hit[0] if hit else None


def _torch(build: str) -> list:
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "armdicts.py", "exec"), ns)
    net = eval(build, ns).to("meta")
    return list(net(torch.empty(2, 8, H, H, device="meta")).shape)


def _holds(shape, observed, names=None) -> bool:
    """Every dim of `shape` that evaluates is the observed size ('?' evaluates to nothing)."""
    if shape is None:
        return True
    assert len(shape) == len(observed), (shape, observed)
    env = dict(names or {})
    for d, o in zip(shape, observed):
        if d == "?":
            continue
        text = re.sub(r"x\.shape\[(\d)\]", lambda m: str([2, 8, H, H][int(m.group(1))]), str(d))
        if eval(text, {}, env) != o:
            return False
    return True


def test_torch_gives_each_arm_its_own_shape():
    assert _torch("Rewritten(limit=32)") == [2, 8, 32, 32]
    assert _torch("Rewritten(limit=2)") == [2, 8, 16, 16]
    assert _torch("Flagged()") == [2, 8, 16, 16]
    assert _torch("Flagged(flag=True)") == [2, 8, 32, 32]
    assert _torch("Added(limit=32)") == [2, 8, 34, 34]
    assert _torch("Added(limit=2)") == [2, 8, 30, 30]
    assert _torch("built_two()") == [2, 8, 8, 8]
    assert _torch("built_two(output_stride=4)") == [2, 8, 16, 16]


@pytest.mark.parametrize("cls, builds", [
    ("Rewritten", ["Rewritten(limit=32)", "Rewritten(limit=2)"]),
    ("Flagged", ["Flagged()", "Flagged(flag=True)"]),
    ("Added", ["Added(limit=32)", "Added(limit=2)"]),
])
def test_the_join_holds_for_builds_taking_either_arm(cls, builds):
    v = _x(_values(), cls)
    for build in builds:
        assert _holds(v["shape"] if v else None, _torch(build)), (cls, build, v)


def test_before_the_last_writer_won():
    # the first arm's `stride = 1` was read past the `if`: the input's own height and width
    v = _x(_values(), "Rewritten")
    assert v is not None and v["shape"][2:] != ["x.shape[2]", "x.shape[3]"]


def test_arms_that_write_alike_keep_the_value():
    v = _x(_values(), "Alike")
    assert v is not None and v["shape"] == ["x.shape[0]", 8, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert _holds(v["shape"], _torch("Alike(limit=32)")) and _holds(v["shape"], _torch("Alike(limit=2)"))


def test_flag_default_context_keeps_its_exact_shape():
    v = _x(_values(), "Flagged")
    got = [c["shape"] for c in (v or {}).get("contexts") or [] if c["context"].startswith("Flagged.__init__:")]
    assert got == [["x.shape[0]", 8, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]], v
    assert _holds(got[0], _torch("Flagged()"))


def test_a_builders_stride_rewritten_under_an_undecided_limit_is_not_claimed():
    v = _x(_values(), "Built")
    ctx = [c["shape"] for c in (v or {}).get("contexts") or [] if c["context"].startswith("built_two:")]
    assert ctx, v
    for build in ("built_two()", "built_two(output_stride=4)"):
        assert _holds(ctx[0], _torch(build)), (ctx, build)
    assert ctx[0][2:] != ["x.shape[2]", "x.shape[3]"]  # what the last writer claimed
