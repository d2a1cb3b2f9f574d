"""A factory's sized construction context (analysis/sized_kwargs.py) with the ints the file's code
compares held at their defaults (analysis/deciding_ints.py), and models built deeper than ten calls.

`output_stride: int = 16` read by `assert output_stride in (8, 16)` and by each stage's
`net_stride >= output_stride` is a choice, not a size: held a symbol in the context of
`net_s(**kwargs)`, every stride from the one that may reach it on was undecided, and each stage's
resolution unknown. The context holds it at its default, as the class's own defaults context
does; devicerun/builders.py counts that context for no build passing `output_stride`.

A timm-like build goes through a factory, a private helper, the model, its stages, blocks, a
shortcut helper, a conv-norm layer and the padding helpers: more than ten calls deep, where the
analysis cut the call off (interp.MAX_DEPTH) and the shortcut's layer was unknown.
Every shape claimed is checked against torch (meta tensors)."""
import pytest

from shapehint.analysis import interp
from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

PROGRAM = '''import torch
from torch import nn


def get_padding(kernel_size, stride=1, dilation=1):
    return ((stride - 1) + dilation * (kernel_size - 1)) // 2


def _padding_value(padding, kernel_size, stride=1, dilation=1):
    if padding == '':
        padding = get_padding(kernel_size, stride, dilation)
    return padding


def _conv_pad(cin, cout, kernel_size, stride=1, dilation=1, padding=''):
    padding = _padding_value(padding, kernel_size, stride=stride, dilation=dilation)
    return nn.Conv2d(cin, cout, kernel_size, stride=stride, dilation=dilation, padding=padding)


def create_conv(cin, cout, kernel_size, stride=1, dilation=1):
    return _conv_pad(cin, cout, kernel_size, stride=stride, dilation=dilation)


class ConvNorm(nn.Module):
    def __init__(self, cin, cout, kernel_size=1, stride=1, dilation=1):
        super().__init__()
        self.conv = create_conv(cin, cout, kernel_size, stride=stride, dilation=dilation)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn(self.conv(x))


def shortcut(cin, cout, stride):
    if cin != cout or stride != 1:
        return ConvNorm(cin, cout, 1, stride=stride)
    return nn.Identity()


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = ConvNorm(cin, cout, 3, stride=stride)
        self.down = shortcut(cin, cout, stride)

    def forward(self, x):
        shortcut = x
        x = self.conv1(x)
        x = x + self.down(shortcut)
        return x


class Stage(nn.Module):
    def __init__(self, depth, cin, cout, stride):
        super().__init__()
        for i in range(depth):
            self.add_module("b{}".format(i + 1), Block(cin if i == 0 else cout, cout, stride if i == 0 else 1))

    def forward(self, x):
        for block in self.children():
            x = block(x)
        return x


class Net(nn.Module):
    def __init__(self, dim: int = 8, output_stride: int = 16, num_classes: int = 10):
        super().__init__()
        assert output_stride in (8, 16)
        self.stem = nn.Conv2d(3, dim, 3, 2, 1)
        prev = dim
        for i, (depth, stride) in enumerate(self._stages(output_stride)):
            self.add_module("s{}".format(i + 1), Stage(depth, prev, prev * 2, stride))
            prev = prev * 2
        self.head = nn.Linear(prev, num_classes)

    def _stages(self, output_stride):
        out = []
        net_stride = 2
        for depth in (1, 2, 2):
            if net_stride >= output_stride:
                stride = 1
            else:
                stride = 2
                net_stride *= stride
            out.append((depth, stride))
        return out

    def forward(self, x):
        x = self.stem(x)
        x = self.s1(x)
        x = self.s2(x)
        x = self.s3(x)
        y = self.head(x.mean((2, 3)))
        return y


def _build(cls, **kwargs):
    return cls(**kwargs)


def _create(variant, pretrained=False, **kwargs):
    return _build(Net, **kwargs)


def net_s(pretrained=False, **kwargs):
    return _create('net_s', pretrained, **kwargs)
'''
LINES = PROGRAM.splitlines()
S1, S3 = (LINES.index(f"        x = self.s{i}(x)") + 1 for i in (1, 3))
HEAD = LINES.index("        y = self.head(x.mean((2, 3)))") + 1


def _torch(**build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "comparedsized.py", "exec"), ns)
    net = ns["net_s"](**build).to("meta")
    x = torch.empty(2, 3, 64, 40, device="meta")
    s1 = net.s1(net.stem(x))
    s3 = net.s3(net.s2(s1))
    return x, {S1: s1.shape, S3: s3.shape, HEAD: net(x).shape}


def _contexts(text=PROGRAM) -> dict:
    values = analyze_source(text, "comparedsized.py").infer_json()["values"]
    return {v["line"]: [c["shape"] for c in v.get("contexts") or [] if c["context"].startswith("net_s:")]
            for v in values if v["function"] == "Net.forward"}


def _evaluated(shape, env) -> list:
    assert "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
    return [d if isinstance(d, int) else eval(d, dict(env)) for d in shape]


def test_torch_output_stride_changes_the_last_stage():
    assert _torch()[1][S3] == (2, 64, 4, 3)
    assert _torch(output_stride=8)[1][S3] == (2, 64, 8, 5)


def test_the_factory_context_holds_the_compared_int_at_its_default():
    x, seen = _torch(num_classes=7)
    got = _contexts()
    env = {"x": x, "dim": 8, "num_classes": 7}
    for line in (S1, S3, HEAD):
        assert got.get(line), (line, got)
        assert _evaluated(got[line][0], env) == list(seen[line]), (line, got[line])
    assert got[HEAD][0][1] == "num_classes"  # (a size stays a symbol: a build passes its own)


def test_past_the_call_depth_the_shortcut_is_unknown(monkeypatch):
    """The shortcut's padding helper runs at the thirteenth call from the factory: with the cut
    at ten calls the block's sum, and every stage after it, lose their resolution."""
    monkeypatch.setattr(interp, "MAX_DEPTH", 10)
    assert _contexts()[S1][0][2] == "?"


@pytest.mark.parametrize("build, matched", [
    ("net_s(num_classes=7)", True),
    ("net_s()", True),
    ("net_s(output_stride=8)", False),
    ("net_s(output_stride=16)", False),  # (its `**kwargs` takes sizes only: no name a function compares)
])
def test_a_build_passing_a_compared_int_is_not_in_the_context(build, matched):
    assert ("net_s" in built_by([build], PROGRAM)) is matched
