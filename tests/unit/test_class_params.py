"""A constructor parameter annotated with the classes it may be (`block: type[Union[Small, Wide]]`)
is one of them in the class's own analysis (analysis/class_params.py, issue 27: torchvision's
ResNet builds its stages from the block class it is given). What the options agree on is
claimed; a class attribute they disagree on is named as the code reads it (`block.expansion`),
and a size their results give as one multiple of it (`16` for Small, `64` for Wide) is that
multiple (`16*block.expansion`). Every shape claimed is evaluated against what torch computes
for each option, with `block` bound to the class passed; each test failed before the mechanism
(the parameter was opaque, the stages unknown), except the last, which guards what must stay
unclaimed."""
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
                           zip(_evaluated(got[(line, "x")], {"x": x, "num_classes": k, "block": ns[name]}), want[line])), \
                    (line, name)
    return got


def test_a_union_of_block_classes_names_the_channels_by_the_class_attribute():
    got = _check(NET.replace("BLOCK", "type[Union[Small, Wide]]"), ["Small", "Wide"])
    assert got[(FWD + 1, "x")][:2] == ["x.shape[0]", "16*block.expansion"]
    assert got[(FWD + 1, "x")][2:] != ["?", "?"]  # the stride both blocks apply
    assert got[(FWD + 3, "x")] == ["x.shape[0]", "16*block.expansion"]
    assert got[(FWD + 4, "x")] == ["x.shape[0]", "num_classes"]  # the head's output, whichever block


def test_one_block_class_gives_its_channels():
    got = _check(NET.replace("BLOCK", "type[Wide]"), ["Wide"])
    assert got[(FWD + 1, "x")][1] == 64
    assert got[(FWD + 3, "x")] == ["x.shape[0]", 64]


def test_a_subclass_the_file_defines_is_one_of_the_options():
    """`type[Small]` admits `Tiny(Small)` with its own expansion: the channels are named by it."""
    src = NET.replace("BLOCK", "type[Small]") + "\n\nclass Tiny(Small):\n    expansion = 2\n"
    got = _check(src, ["Small", "Tiny"])
    assert got[(FWD + 1, "x")][1] == "16*block.expansion"


def test_a_class_of_another_library_leaves_the_parameter_unknown():
    got = _values(NET.replace("BLOCK", "type[nn.Module]"), "Net.forward")
    assert (got.get((FWD + 1, "x")) or [None, "?"])[1] == "?"


STAGES = '''import torch
import torch.nn as nn
from typing import Optional, Union


class Small(nn.Module):
    expansion = 1

    def __init__(self, cin: int, planes: int, stride: int = 1, downsample: Optional[nn.Module] = None):
        super().__init__()
        self.conv = nn.Conv2d(cin, planes * self.expansion + EXTRA, 3, stride, 1)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.conv(x)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return out


class Wide(nn.Module):
    expansion = 4

    def __init__(self, cin: int, planes: int, stride: int = 1, downsample: Optional[nn.Module] = None):
        super().__init__()
        self.conv = nn.Conv2d(cin, planes * self.expansion + EXTRA, 1, stride)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.conv(x)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return out


class Net(nn.Module):
    def __init__(self, block: type[Union[Small, Wide]], layers: list[int], num_classes: int = 10):
        super().__init__()
        self.inplanes = 8
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.layer1 = self._make_layer(block, 8, layers[0])
        self.layer2 = self._make_layer(block, 16, layers[1], stride=2)
        self.fc = nn.Linear(16 * block.expansion + EXTRA, num_classes)

    def _make_layer(self, block: type[Union[Small, Wide]], planes: int, blocks: int, stride: int = 1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion + EXTRA:
            downsample = nn.Conv2d(self.inplanes, planes * block.expansion + EXTRA, 1, stride)
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion + EXTRA
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = torch.flatten(x.mean((2, 3)), 1)
        x = self.fc(x)
        return x
'''
STAGE_FWD = STAGES.splitlines().index("        x = self.stem(x)") + 1


def _check_stages(src: str) -> dict:
    got = _values(src, "Net.forward")
    assert not [d for d in analyze_source(src, "m.py").diagnostics if d.severity == "error"]
    ns = _run(src)
    x = torch.randn(2, 3, 17, 12)
    for name in ("Small", "Wide"):
        for layers in ([1, 1], [2, 3]):  # (one block: the loop appends none)
            model = ns["Net"](ns[name], layers)
            h = model.stem(x)
            want = {STAGE_FWD: h.shape, STAGE_FWD + 1: model.layer1(h).shape,
                    STAGE_FWD + 2: model.layer2(model.layer1(h)).shape}
            for line, shape in want.items():
                assert all(g is None or g == w for g, w in
                           zip(_evaluated(got[(line, "x")], {"x": x, "block": ns[name]}), shape)), (line, name)
    return got


def test_stages_built_by_a_loop_of_blocks_of_a_class_parameter_name_their_channels():
    """A stage is the first block, then `range(1, blocks)` more (a list the loop grew: a
    Sequential of that layout, layer_tails.py), each block's channels a multiple of
    `block.expansion`; their residual sums meet on the named size too."""
    got = _check_stages(STAGES.replace(" + EXTRA", ""))
    assert got[(STAGE_FWD + 1, "x")] == ["x.shape[0]", "8*block.expansion", "(x.shape[2] - 1)//2 + 1",
                                         "(x.shape[3] - 1)//2 + 1"]
    assert got[(STAGE_FWD + 2, "x")][1] == "16*block.expansion"
    assert got[(STAGE_FWD + 2, "x")][2] == "((x.shape[2] - 1)//2)//2 + 1"


def test_channels_that_are_no_multiple_of_the_class_attribute_are_not_claimed():
    """`planes * expansion + 1`: 9 for Small and 33 for Wide are no one multiple of it."""
    got = _check_stages(STAGES.replace("EXTRA", "1"))
    assert got[(STAGE_FWD + 1, "x")][1] == "?"


INSTANCES = """import torch
import torch.nn as nn
from typing import Union


class A(nn.Module):
    def __init__(self, c: int = 4):
        super().__init__()
        self.fc = nn.Linear(c, 8)

    def forward(self, x):
        return self.fc(x)


class B(A):
    pass


def run(block: Union[A, B], x: torch.Tensor):
    return block(x)
"""


def test_a_union_of_module_classes_without_type_is_read_as_instances():
    """`block: Union[A, B]` means instances, as typing says. Read as a choice of classes, `block(x)`
    built a layer from the tensor, and `run` got a rank-1 signature whose example ([32]) crashes on
    the instances the hint describes (torch: Linear(4, 8) of a [32] tensor)."""
    from shapehint.analysis.engine import run
    from shapehint.questions.signatures import signatures_json
    sigs = {s["function"]: s for s in signatures_json(run(INSTANCES, "m.py", records=False))}
    x = next(p for p in sigs["run"]["params"] if p["name"] == "x")
    ns = _run(INSTANCES)
    if x["example"] is not None:  # any claimed example must run on the instances the hint names
        for cls in ("A", "B"):
            ns["run"](ns[cls](), torch.zeros(x["example"]))


HELPER = NET[:NET.index("class Net")].replace("from typing import Union", "from typing import Tuple, Type, Union") + '''
def make_stages(fns: HELPER_HINT, widths, cin):
    stages = []
    for i, (fn, planes) in enumerate(zip(fns, widths)):
        stages.append((f"stage{i + 1}", nn.Sequential(fn(cin, planes, 2))))
        cin = planes * fn.expansion
    return stages


class Net(nn.Module):
    def __init__(self, block: Union[Small, Wide], widths=(8, 16), num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3)
        fns = tuple([block] * len(widths))
        for stage in make_stages(fns, widths, 8):
            self.add_module(*stage)
        self.fc = nn.Linear(widths[-1] * fns[-1].expansion, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.stage1(x)
        x = self.stage2(x)
        x = x.mean((2, 3))
        x = self.fc(x)
        return x
'''
HELPER_FWD = HELPER.splitlines().index("        x = self.stem(x)") + 1


def _helper_shapes(hint: str) -> dict:
    src = HELPER.replace("HELPER_HINT", hint)
    assert not [d for d in analyze_source(src, "m.py").diagnostics if d.severity == "error"]
    got = _values(src, "Net.forward")
    ns = _run(src)
    x = torch.randn(2, 3, 19, 14)
    for name in ("Small", "Wide"):
        model = ns["Net"](ns[name])
        want = _traced(model, x)
        for line in range(HELPER_FWD, HELPER_FWD + 5):
            if (line, "x") in got:
                assert all(g is None or g == w for g, w in
                           zip(_evaluated(got[(line, "x")], {"x": x, "num_classes": 10, "block": ns[name]}),
                               want[line])), (line, name)
    return got


def test_a_union_of_instances_passed_on_to_a_parameter_of_classes_is_read_as_classes():
    """`block: Union[Small, Wide]` says instances, but the constructor hands it on (`fns`, made
    from it) to a helper of its module whose parameter says classes of the same set, where it is
    built from: that hint wins, and the stages are named by `block.expansion` (before, `block` was
    opaque and every stage unknown)."""
    got = _helper_shapes("Tuple[Union[Type[Small], Type[Wide]], ...]")
    assert got[(HELPER_FWD + 1, "x")][:2] == ["x.shape[0]", "8*block.expansion"]
    assert got[(HELPER_FWD + 2, "x")][:2] == ["x.shape[0]", "16*block.expansion"]
    assert got[(HELPER_FWD + 4, "x")] == ["x.shape[0]", "num_classes"]


def test_a_helper_hint_of_other_classes_leaves_the_union_as_written():
    """The helper names only `Type[Small]`: the two hints are of different sets, nothing says
    which the constructor's value is, so the stages stay unknown."""
    got = _helper_shapes("Tuple[Type[Small], ...]")
    assert (got.get((HELPER_FWD + 1, "x")) or [None, "?"])[1] == "?"
    got = _helper_shapes("tuple")
    assert (got.get((HELPER_FWD + 1, "x")) or [None, "?"])[1] == "?"


def test_the_calls_a_parameter_is_passed_to_are_read_once_per_function_and_name():
    """The syntax `passed_as_classes` reads (the names derived from the parameter, the calls it
    is passed to) is kept per function tree and per name: asked again it is the same reading, a
    second name of the same function gets its own, and the answers stay those above."""
    import ast

    from shapehint.analysis import class_params
    tree = ast.parse(HELPER.replace("HELPER_HINT", "tuple"))
    init = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__"
                and n.args.args[1].arg == "block")
    names, calls = class_params._passing_calls(init, "block")
    assert names == {"block", "fns"}
    assert [c.func.id for c in calls] == ["make_stages"]
    assert class_params._passing_calls(init, "block")[1] is calls
    names, calls = class_params._passing_calls(init, "widths")
    assert names == {"widths", "fns"} and sorted(c.func.id for c in calls) == ["len", "make_stages"]
    assert class_params._passing_calls(init, "num_classes") == ({"num_classes"}, ())
    test_a_union_of_instances_passed_on_to_a_parameter_of_classes_is_read_as_classes()
