"""Two shapes of loop-assembled CNNs that no sound claim can name yet (issue 27's DenseNet and VGG
lines), and what the analysis does claim around them, checked against torch on the meta device.

- A dense layer's `torch.cat(xs, 1)` of a list parameter: on its own the list may hold the
  legacy empty 1-D tensor `cat` skips (`ops/empty_operands.py`), so no axis of `xs[0]` names the
  result's; called from the block's loop the items are known, but the loop runs to a fixpoint,
  so the channels of a later pass are not stated (each pass has others).
- A VGG-like `features` Sequential built by a loop over a `cfg` the caller gives: the channels
  and the pools' count depend on `cfg`. Where `cfg` holds no width (pools only) the output keeps
  the input's channels, not `in_chans`, so no held width names them in `forward_features`; in
  `forward` the head's input width does (`self.head.in_channels`, `analysis/held_sizes.py`).

What a right claim would take (issue 27; the referee's lines tv densenet.py:48, timm
densenet.py:68, timm vgg.py:324/349):
- The dense layer's lines run only as block -> layer.forward -> bottleneck. The block's names
  (`init_features`, its own constructor's) give the batch and sides but no channel count of pass
  k (`init + k * growth`; one via path is judged by the join of its passes); the layer's names
  give the channels (`num_input_features`, `self.norm1.num_features`) but the batch and sides only
  as `x[0].shape[...]`, unsound for a layer called directly (the empty item above). A context in
  the layer's names restricted to the calls through the block's line is no kind of context yet
  (`via` names the path and the names at once), nor is a pass of the caller's loop bound for a
  callee's line.
- VGG's sides are `H // 2**P`, P the pools of a `cfg` no factory of the file passes: nothing
  after `features` constrains them, and only `len(self.feature_ends) - 1` holds P, a relation
  between one arm's passes and two containers' growth no loop summary keeps. In `forward` the
  channels are `self.num_features` for every admissible input (the head's conv takes that width),
  which alone leaves the line partial.

Every dim that evaluates under a call's bindings must be torch's; a dim naming an axis the
bound tensor lacks is a wrong claim, never a skipped one."""
import functools
import types

import pytest

from shapehint.analysis.api import analyze_source

DENSE = '''from typing import List, Union
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, cin: int, growth: int):
        super().__init__()
        self.norm = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, 2 * growth, 1)
        self.out = nn.Conv2d(2 * growth, growth, 3, padding=1)

    def bottleneck(self, xs: List[torch.Tensor]) -> torch.Tensor:
        cat = torch.cat(xs, 1)
        mid = self.conv(self.norm(cat))
        return mid

    def forward(self, x: Union[torch.Tensor, List[torch.Tensor]]) -> torch.Tensor:
        if isinstance(x, torch.Tensor):
            prev = [x]
        else:
            prev = x
        mid = self.bottleneck(prev)
        new = self.out(mid)
        return new


class Block(nn.ModuleDict):
    def __init__(self, n: int, cin: int, growth: int):
        super().__init__()
        for i in range(n):
            self.add_module("layer%d" % (i + 1), Layer(cin + i * growth, growth))

    def forward(self, init: torch.Tensor) -> torch.Tensor:
        feats = [init]
        for name, layer in self.items():
            new = layer(feats)
            feats.append(new)
        return torch.cat(feats, 1)
'''

VGG = '''from typing import Any, List
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, cfg: List[Any], num_classes: int = 10, in_chans: int = 3) -> None:
        super().__init__()
        prev = in_chans
        ends: List[int] = []
        layers: List[nn.Module] = []
        for v in cfg:
            if v == "M":
                ends.append(len(layers) - 1)
                layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
            else:
                layers += [nn.Conv2d(prev, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
                prev = v
        self.features = nn.Sequential(*layers)
        self.ends = ends
        self.num_features = prev
        self.head = nn.Conv2d(prev, num_classes, 1)

    def forward_features(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.forward_features(x)
        y = self.head(x)
        return y
'''


@functools.lru_cache(maxsize=None)
def _answer(src, name):
    return analyze_source(src, name).infer_json()["values"]


def _value(values, function, name):
    hit = [v for v in values if v["function"] == function and v["name"] == name]
    assert hit, (function, name)
    return hit[0]


def _scope(src, name):
    scope = {}
    exec(compile(src, name, "exec"), scope)
    return scope


def _agree(shape, observed, env) -> int:
    """How many dims of `shape` evaluate under `env` (objects: tensors' shapes, modules, ints);
    each must be torch's. A name `env` lacks is no claim; an axis or part the bound object lacks
    is a wrong one (IndexError, AttributeError fail the test)."""
    if shape is None:
        return 0  # (no shape: no claim)
    assert len(shape) == len(observed), (shape, observed)
    n = 0
    for d, o in zip(shape, observed):
        if d == "?":
            continue
        try:
            v = d if isinstance(d, int) else eval(d, {"max": max, "min": min}, dict(env))
        except NameError:
            continue
        assert v == o, (shape, observed, d)
        n += 1
    return n


def _t(t):
    return types.SimpleNamespace(shape=tuple(t.shape))


def _bottleneck_calls(layer_cls):
    """Record each `bottleneck` call's input list and output of a torch run."""
    calls = []
    orig = layer_cls.bottleneck

    def spy(self, xs):
        out = orig(self, xs)
        import torch
        calls.append((self, [_t(x) for x in xs], list(torch.cat(list(xs), 1).shape)))
        return out
    layer_cls.bottleneck = spy
    return calls


@pytest.mark.parametrize("n,cin,growth", [(2, 16, 8), (3, 5, 3), (1, 4, 7)])
def test_the_dense_layers_concatenation_in_the_blocks_context_is_torchs(n, cin, growth):
    import torch
    values = _answer(DENSE, "dense.py")
    cat = _value(values, "Layer.bottleneck", "cat")
    from_block = [c["shape"] for c in cat.get("contexts") or [] if (c.get("via") or [""])[0].startswith("Block.forward:")]
    assert from_block, cat
    ns = _scope(DENSE, "dense.py")
    calls = _bottleneck_calls(ns["Layer"])
    init = torch.empty(2, cin, 9, 11, device="meta")
    ns["Block"](n, cin, growth).to("meta")(init)
    assert len(calls) == n
    for _, _, observed in calls:
        for shape in from_block:  # (in the block's names: the batch and sides are its input's)
            assert _agree(shape, observed, {"init": _t(init)}) >= 3


def test_the_concatenation_of_a_list_parameter_names_no_items_axis():
    """Called with the legacy empty tensor among the items, `cat` skips it: `xs[0].shape[0]`
    would be 0 and `xs[0].shape[2]` no axis at all. The layer's own claims (`bottleneck` and
    `forward`, in their names) must hold for such calls as for a plain one."""
    import torch
    values = _answer(DENSE, "dense.py")
    ns = _scope(DENSE, "dense.py")
    calls = _bottleneck_calls(ns["Layer"])
    layer = ns["Layer"](6, 4).to("meta")
    t = torch.empty(3, 6, 5, 7, device="meta")
    given = [t, [torch.empty(0, device="meta"), t], [t[:, :2], torch.empty(0, device="meta"), t[:, 2:]]]
    outs = [layer(x) for x in given]
    assert [c[2] for c in calls] == [[3, 6, 5, 7]] * 3
    evaluated = 0
    for (me, xs, _), x, out in zip(calls, given, outs):
        own = {"self": me, "cin": 6, "growth": 4}
        for key, observed in (("cat", [3, 6, 5, 7]), ("mid", [3, 8, 5, 7])):
            _agree(_value(values, "Layer.bottleneck", key)["shape"], observed, dict(own, xs=xs))
        arg = _t(x) if isinstance(x, torch.Tensor) else [_t(i) for i in x]
        _agree(_value(values, "Layer.forward", "mid")["shape"], [3, 8, 5, 7], dict(own, x=arg))
        evaluated += _agree(_value(values, "Layer.forward", "new")["shape"], list(out.shape), dict(own, x=arg))
    assert evaluated >= 3  # (the new features' width, `growth`, at least)


CFGS = [[16, "M", 32, "M", 64, "M"], ["M", "M"], [8], [8, "M", 12], ["M", 6, "M"]]


@pytest.mark.parametrize("cfg", CFGS)
def test_a_cfg_loops_features_are_torchs_in_forward_features(cfg):
    """Pools only: the output keeps the input's 5 channels, where `in_chans` (3) and every width
    the instance holds (`num_features`, `head.in_channels`) say 3."""
    import torch
    values = _answer(VGG, "vgg.py")
    net = _scope(VGG, "vgg.py")["Net"](cfg).to("meta")
    x = torch.empty(2, 3 if any(v != "M" for v in cfg) else 5, 32, 24, device="meta")
    got = net.forward_features(x)
    shape = _value(values, "Net.forward_features", "x")["shape"]
    env = {"x": _t(x), "self": net, "num_classes": 10, "in_chans": 3}
    assert _agree(shape, list(got.shape), env) >= 1


@pytest.mark.parametrize("cfg", CFGS)
def test_a_cfg_loops_features_are_torchs_in_forward(cfg):
    """Where the head follows, the channels are the width it was built with (held by it)."""
    import torch
    values = _answer(VGG, "vgg.py")
    net = _scope(VGG, "vgg.py")["Net"](cfg).to("meta")
    x = torch.empty(2, 3, 32, 24, device="meta")
    feats = net.forward_features(x)
    env = {"x": _t(x), "self": net, "num_classes": 10, "in_chans": 3}
    assert _agree(_value(values, "Net.forward", "x")["shape"], list(feats.shape), env) >= 2
    assert _agree(_value(values, "Net.forward", "y")["shape"], list(net.head(feats).shape), env) >= 2
    inner = _value(values, "Net.forward_features", "x")
    for c in inner.get("contexts") or []:
        if c["context"].startswith("Net.forward:"):
            assert _agree(c["shape"], list(feats.shape), env) >= 2
