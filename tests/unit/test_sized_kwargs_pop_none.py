"""`kwargs.pop('pool', None) or partial(nn.AvgPool2d, 2)` in a factory's sized construction context
(analysis/dicts._absent_in_sizes, sized_kwargs.py). The context stands only for builds that pass
no key the file reads by `pop`/`get`/`setdefault` (devicerun/builders.py makes each such key a
flag), so in the file's own code that key is absent and the default is taken, None included:
the partial is the pool, where before the pop was unknown and every line after the pool had no
shape. A pop in another module's code (not scanned by builders.py) keeps the old reading. Every
claim is checked against torch, with the build the context stands for."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

PROGRAM = '''import torch
import torch.nn as nn
from functools import partial


class Net(nn.Module):
    def __init__(self, width: int = 8, pool=None, num_classes: int = 10):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3, padding=1)
        self.pool = pool(width) if pool is not None else nn.Identity()
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.conv(x)
        x = self.pool(x)
        x = x.flatten(2).mean(2)
        x = self.head(x)
        return x


class Pool(nn.Module):
    def __init__(self, channels, k=2):
        super().__init__()
        self.pool = nn.AvgPool2d(k)

    def forward(self, x):
        return self.pool(x)


def _gen(variant, **kwargs):
    model_kwargs = dict(pool=kwargs.pop('pool', None) or partial(Pool, k=4), **kwargs)
    return Net(**model_kwargs)


def net_small(pretrained=False, **kwargs):
    return _gen('net_small', **kwargs)
'''
POOLED = 15  # `x = self.pool(x)` in Net.forward


def _context(shape_of="net_small:"):
    values = analyze_source(PROGRAM, "sizedpop.py").infer_json()["values"]
    hit = [v for v in values if v["function"] == "Net.forward" and v["line"] == POOLED and v["name"] == "x"]
    assert hit, "no record of the pooled line"
    return [c["shape"] for c in hit[0].get("contexts") or [] if c["context"].startswith(shape_of)]


def _torch(build: str) -> list:
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "sizedpop.py", "exec"), ns)
    net = eval(build, ns)
    out = {}

    def seen(module, inputs, output):
        out["x"] = list(output.shape)
    net.pool.register_forward_hook(seen)
    net(torch.zeros(2, 3, 16, 16))
    return out["x"]


def test_torch_pools_by_the_partials_window():
    assert _torch("net_small()") == [2, 8, 4, 4]
    assert _torch("net_small(num_classes=7)") == [2, 8, 4, 4]


def test_the_sized_context_takes_the_pops_none_default():
    ctx = _context()
    assert ctx == [["x.shape[0]", "width", "x.shape[2]//4", "x.shape[3]//4"]], ctx
    # evaluated for the build it stands for (`width` is the model's constructor argument, 8)
    assert [2, 8, 16 // 4, 16 // 4] == _torch("net_small(num_classes=7)")


def test_builders_count_it_only_for_builds_not_passing_the_popped_key():
    assert "net_small" in built_by(["net_small(num_classes=7)"], PROGRAM)
    assert "net_small" not in built_by(["net_small(pool=3)"], PROGRAM)
