"""A factory's sized construction context (analysis/sized_kwargs.py) with an int the model's
constructor hands to a class that compares it held at its default (deciding_ints.handed_on).

`Net(output_stride=16)` never compares `output_stride` itself: it hands it to a block builder that
stores it and, in `__call__`, turns each stride that would pass it into a dilation. Held a symbol
in the context of `net_s(**kwargs)`, each block's `stride * s > self.output_stride` was undecided
and every line after the stem of unknown resolution. devicerun/builders.py counts that context
for no build that passes `output_stride`. Every shape claimed is checked against torch (meta)."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.deciding_ints import compared_params, handed_on
from shapehint.devicerun.builders import built_by

PROGRAM = '''import torch
from torch import nn


class Builder:
    def __init__(self, output_stride=32, pad=1):
        self.output_stride = output_stride
        self.pad = pad

    def __call__(self, cin, widths):
        layers, net_stride, dilation = [], 2, 1
        for w in widths:
            nxt = net_stride * 2
            if nxt > self.output_stride:
                stride, dilation = 1, dilation * 2
            else:
                stride, net_stride = 2, nxt
            layers.append(nn.Conv2d(cin, w, 3, stride, padding=dilation, dilation=dilation))
            cin = w
        self.out_chs = cin
        return layers


class Net(nn.Module):
    def __init__(self, dim: int = 8, output_stride: int = 16, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 3, 2, 1)
        builder = Builder(output_stride=output_stride)
        self.blocks = nn.Sequential(*builder(dim, (16, 24, 32)))
        self.head = nn.Linear(builder.out_chs, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.blocks(x)
        y = self.head(x.mean((2, 3)))
        return y


def _create(variant, pretrained=False, **kwargs):
    return Net(**kwargs)


def net_s(pretrained=False, **kwargs):
    return _create('net_s', pretrained, **kwargs)
'''
LINES = PROGRAM.splitlines()
BLOCKS = LINES.index("        x = self.blocks(x)") + 1
HEAD = LINES.index("        y = self.head(x.mean((2, 3)))") + 1


def _torch(**build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "handedsized.py", "exec"), ns)
    net = ns["net_s"](**build).to("meta")
    x = torch.empty(2, 3, 64, 40, device="meta")
    return x, {BLOCKS: net.blocks(net.stem(x)).shape, HEAD: net(x).shape}


def _contexts(text=PROGRAM) -> dict:
    values = analyze_source(text, "handedsized.py").infer_json()["values"]
    return {v["line"]: [c["shape"] for c in v.get("contexts") or [] if c["context"].startswith("net_s:")]
            for v in values if v["function"] == "Net.forward"}


def _evaluated(shape, env) -> list:
    assert "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
    return [d if isinstance(d, int) else eval(d, dict(env)) for d in shape]


def test_torch_output_stride_changes_the_blocks_resolution():
    assert _torch()[1][BLOCKS] == (2, 32, 4, 3)
    assert _torch(output_stride=8)[1][BLOCKS] == (2, 32, 8, 5)


def test_the_builder_compares_what_it_stored():
    tree = ast.parse(PROGRAM)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    compared, params = compared_params(classes["Builder"])
    assert compared == {"output_stride"} and params == ["output_stride", "pad"]
    init = next(n for n in classes["Net"].body if isinstance(n, ast.FunctionDef))
    assert handed_on(init, classes.get) == {"output_stride": 16}
    assert handed_on(init, lambda name: None) == {}  # (a class not found decides nothing)


def test_the_factory_context_holds_the_handed_int_at_its_default():
    x, seen = _torch(num_classes=7)
    got = _contexts()
    env = {"x": x, "dim": 8, "num_classes": 7}
    for line in (BLOCKS, HEAD):
        assert got.get(line), (line, got)
        assert _evaluated(got[line][0], env) == list(seen[line]), (line, got[line])
    assert got[HEAD][0][1] == "num_classes"  # (a size stays a symbol: a build passes its own)


def test_without_the_builders_comparison_it_stays_a_size():
    """The same program with the builder comparing its `pad` instead: `output_stride` is a size
    again, in the context and for builders.py alike."""
    text = PROGRAM.replace("if nxt > self.output_stride:", "if nxt > self.pad * 64:")
    tree = ast.parse(text)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    init = next(n for n in classes["Net"].body if isinstance(n, ast.FunctionDef))
    assert handed_on(init, classes.get) == {}
    assert "net_s" in built_by(["net_s(output_stride=8)"], text)


@pytest.mark.parametrize("build, matched", [
    ("net_s(num_classes=7)", True),
    ("net_s()", True),
    ("net_s(output_stride=8)", False),
    ("net_s(output_stride=16)", False),  # (its `**kwargs` takes sizes only: no name a class compares)
])
def test_a_build_passing_a_handed_int_is_not_in_the_context(build, matched):
    assert ("net_s" in built_by([build], PROGRAM)) is matched
