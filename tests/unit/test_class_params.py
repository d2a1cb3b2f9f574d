"""A constructor parameter annotated with the classes it may be (`block: type[Union[Small, Wide]]`)
is one of them in the class's own analysis (analysis/class_params.py, issue 27: torchvision's
ResNet builds its stages from the block class it is given). What the options agree on is
claimed, what they disagree on (the channels of `planes * block.expansion`) is not. Every shape
claimed is evaluated against what torch computes for each option; each test failed before the
mechanism (the parameter was opaque, the stages unknown), except the last, which guards what
must stay unclaimed."""
import torch

from shapehint.analysis.api import analyze_source

from .shape_eval import evaluated as _evaluated, run_program as _run


def _values(src: str, function: str) -> dict:
    r = analyze_source(src, "m.py")
    return {(v["line"], v["name"]): v["shape"] for v in r.infer_json()["values"] if v["function"] == function}


def _traced(model, x) -> dict:
    """{line of `forward`'s assignment to `x`: the shape it got}, by tracing the real run."""
    import sys
    seen: dict = {}
    code = type(model).forward.__code__

    def tracer(frame, event, arg):
        if frame.f_code is code and event == "line" and isinstance(frame.f_locals.get("x"), torch.Tensor):
            seen.setdefault("lines", []).append((frame.f_lineno, tuple(frame.f_locals["x"].shape)))
        return tracer

    sys.settrace(tracer)
    try:
        out = model(x)
    finally:
        sys.settrace(None)
    # the shape `x` has when line L+1 starts is what line L assigned
    lines = seen.get("lines", [])
    got = {a[0]: b[1] for a, b in zip(lines, lines[1:])}
    got[lines[-1][0]] = tuple(out.shape)
    return got


NET = """import torch
import torch.nn as nn
from typing import Union


class Small(nn.Module):
    expansion = 1

    def __init__(self, cin, planes, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, planes * self.expansion, 3, stride, 1)

    def forward(self, x):
        return self.conv(x)


class Wide(nn.Module):
    expansion = 4

    def __init__(self, cin, planes, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, planes * self.expansion, 3, stride, 1)

    def forward(self, x):
        return self.conv(x)


class Net(nn.Module):
    def __init__(self, block: BLOCK, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.stage = nn.Sequential(block(8, 16, 2), block(16 * block.expansion, 16))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16 * block.expansion, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.stage(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return x
"""

FWD = NET.splitlines().index("        x = self.stem(x)") + 1  # line of the stem


def _check(src: str, blocks: list) -> dict:
    """The inferred shapes of forward's lines, checked against torch for every block class."""
    got = _values(src, "Net.forward")
    ns = _run(src)
    x = torch.randn(2, 3, 17, 12)
    for name in blocks:
        for k in (3, 7):
            want = _traced(ns["Net"](ns[name], num_classes=k), x)
            for line in range(FWD, FWD + 5):
                assert (line, "x") in got
                assert all(g is None or g == w for g, w in
                           zip(_evaluated(got[(line, "x")], {"x": x, "num_classes": k}), want[line])), (line, name)
    return got


def test_a_union_of_block_classes_claims_what_both_give_and_not_the_channels():
    got = _check(NET.replace("BLOCK", "type[Union[Small, Wide]]"), ["Small", "Wide"])
    assert got[(FWD + 1, "x")][0] == "x.shape[0]" and got[(FWD + 1, "x")][1] == "?"
    assert got[(FWD + 1, "x")][2:] != ["?", "?"]  # the stride both blocks apply
    assert got[(FWD + 4, "x")] == ["x.shape[0]", "num_classes"]  # the head's output, whichever block


def test_one_block_class_gives_its_channels():
    got = _check(NET.replace("BLOCK", "type[Wide]"), ["Wide"])
    assert got[(FWD + 1, "x")][1] == 64
    assert got[(FWD + 3, "x")] == ["x.shape[0]", 64]


def test_a_subclass_the_file_defines_is_one_of_the_options():
    """`type[Small]` admits `Tiny(Small)` with its own expansion: the channels are not claimed."""
    src = NET.replace("BLOCK", "type[Small]") + "\n\nclass Tiny(Small):\n    expansion = 2\n"
    got = _check(src, ["Small", "Tiny"])
    assert got[(FWD + 1, "x")][1] == "?"


def test_a_class_of_another_library_leaves_the_parameter_unknown():
    got = _values(NET.replace("BLOCK", "type[nn.Module]"), "Net.forward")
    assert (got.get((FWD + 1, "x")) or [None, "?"])[1] == "?"
