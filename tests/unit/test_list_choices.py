"""Choices that remember the condition of each option (choices.conditioned,
arm_alignment.aligned_options): a shortcut built only where `cin != cout or stride != 1`, the
identity elsewhere. Containers that are one of several known ones (analysis/list_choices.py): lists of layers of
different lengths joined after an undecided `if` and spread into `nn.Sequential`, and a loop over
a module list built differently in the arms of an undecided `if`, run once per option; and lists
an undecided arm appends to (analysis/arm_lists.py): of unknown length, their item the join of
every item either arm left. Each claimed shape is checked against torch on the meta device;
where the options disagree the axis is not claimed."""
import ast
import types

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.list_choices import writes_only_names

SRC = 'import torch\nimport torch.nn as nn\n\n\nclass Proj(nn.Module):\n    def __init__(self, cin: int, cout: int, act: bool):\n        super().__init__()\n        proj = [nn.Conv2d(cin, cout, kernel_size=1)]\n        if act:\n            proj = proj + [nn.ReLU()]\n        self.proj = nn.Sequential(*proj)\n\n    def forward(self, x):\n        y = self.proj(x)\n        return y\n\n\nclass Pool(nn.Module):\n    def __init__(self, cin: int, cout: int, stride: int):\n        super().__init__()\n        proj = [nn.Conv2d(cin, cout, kernel_size=1)]\n        if stride == 2:\n            proj = [nn.AvgPool2d(kernel_size=3, stride=stride, padding=1)] + proj\n        self.proj = nn.Sequential(*proj)\n\n    def forward(self, x):\n        y = self.proj(x)\n        return y\n\n\nclass Norm(nn.Module):\n    def __init__(self, c: int, norm: bool):\n        super().__init__()\n        if norm:\n            self.pre = nn.ModuleList([nn.BatchNorm2d(c), nn.ReLU()])\n        else:\n            self.pre = nn.ModuleList()\n\n    def forward(self, x):\n        for layer in self.pre:\n            x = layer(x)\n        y = x\n        return y\n\n\nclass Down(nn.Module):\n    def __init__(self, cin: int, cout: int):\n        super().__init__()\n        if cin != cout:\n            self.down = nn.ModuleList([nn.BatchNorm2d(cin), nn.Conv2d(cin, cout, kernel_size=1)])\n        else:\n            self.down = nn.ModuleList()\n\n    def forward(self, x):\n        for layer in self.down:\n            x = layer(x)\n        y = x\n        return y\n\n\nclass Grown(nn.Module):\n    def __init__(self, d: int, n: int):\n        super().__init__()\n        layers = [nn.Linear(d, 2 * d)]\n        for i in range(n):\n            layers = layers + [nn.Linear(2 * d, 2 * d)]\n        self.body = nn.Sequential(*layers)\n\n    def forward(self, x):\n        y = self.body(x)\n        return y\n\n\nclass Cond(nn.Module):\n    def __init__(self, n: int):\n        super().__init__()\n        layers = [nn.ReLU()]\n        for i in range(n):\n            layers.append(nn.Dropout())\n            if i % 2 == 1:\n                layers.append(nn.Identity())\n        self.body = nn.Sequential(*layers)\n\n    def forward(self, x):\n        y = self.body(x)\n        return y\n'


def _values(src=SRC):
    return {(v["function"], v["name"]): v["shape"] for v in analyze_source(src, "choices.py").infer_json()["values"]}


def _dim(d, env):
    return None if d == "?" else eval(d, {}, env)


def _check(cls, args, x_shape, env, want):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "choices.py", "exec"), ns)
    x = torch.empty(*x_shape, device="meta")
    y = ns[cls](*args).to("meta")(x)
    env = {"x": types.SimpleNamespace(shape=x.shape), **env}
    assert len(y.shape) == len(want)
    for got, d in zip(y.shape, want):
        assert d == "?" or got == _dim(d, env)


def test_lists_of_layers_that_agree_give_the_shape():
    assert _values()[("Proj.forward", "y")] == ["x.shape[0]", "cout", "x.shape[2]", "x.shape[3]"]


@pytest.mark.parametrize("act", [True, False])
def test_the_agreeing_sequentials_are_torchs(act):
    _check("Proj", (3, 5, act), (2, 3, 7, 9), {"cout": 5}, _values()[("Proj.forward", "y")])


def test_lists_of_layers_that_disagree_leave_the_axes_they_change_unknown():
    assert _values()[("Pool.forward", "y")] == ["x.shape[0]", "cout", "?", "?"]


@pytest.mark.parametrize("stride", [1, 2])
def test_the_disagreeing_sequentials_are_torchs(stride):
    _check("Pool", (3, 5, stride), (2, 3, 7, 9), {"cout": 5}, _values()[("Pool.forward", "y")])


def test_a_loop_over_module_lists_that_agree_keeps_the_shape():
    assert _values()[("Norm.forward", "y")] == ["x.shape[0]", "x.shape[1]", "x.shape[2]", "x.shape[3]"]


@pytest.mark.parametrize("norm", [True, False])
def test_the_agreeing_loop_is_torchs(norm):
    _check("Norm", (4, norm), (2, 4, 5, 6), {}, _values()[("Norm.forward", "y")])


def test_a_loop_over_module_lists_that_disagree_leaves_the_channels_unknown():
    assert _values()[("Down.forward", "y")] == ["x.shape[0]", "?", "x.shape[2]", "x.shape[3]"]


@pytest.mark.parametrize("cin,cout", [(4, 4), (4, 6)])
def test_the_disagreeing_loop_is_torchs(cin, cout):
    _check("Down", (cin, cout), (2, cin, 5, 6), {}, _values()[("Down.forward", "y")])


def test_a_list_rebuilt_in_a_loop_is_no_choice():
    # `layers = layers + [...]` each pass: any number of layers, never one of two lists
    assert ("Grown.forward", "y") not in _values()


def test_a_list_appended_to_in_one_arm_keeps_its_item():
    assert _values()[("Cond.forward", "y")] == ["*x"]


@pytest.mark.parametrize("n", [0, 1, 4])
def test_the_conditionally_grown_sequential_is_torchs(n):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "choices.py", "exec"), ns)
    x = torch.empty(2, 3, 5, device="meta")
    assert ns["Cond"](n).to("meta").eval()(x).shape == x.shape


def test_without_the_mechanism_nothing_is_claimed():
    # the same programs with the `if` decided nowhere and the options opaque: no shape
    src = SRC.replace("self.pre = nn.ModuleList()", "self.pre = unknown_container()")
    assert ("Norm.forward", "y") not in _values(src)


@pytest.mark.parametrize("body,plain", [
    ("    x = layer(x)\n", True),
    ("    if x is None:\n        x = layer(x)\n    else:\n        x, y = layer(x), 1\n", True),
    ("    outs.append(layer(x))\n", False),
    ("    self.last = layer(x)\n", False),
    ("    x = layer(x)\n    break\n", False),
    ("    xs[0] = layer(x)\n", False),
])
def test_only_loops_writing_local_names_run_per_option(body, plain):
    st = ast.parse("for layer in layers:\n" + body).body[0]
    assert writes_only_names(st) is plain


SHORT = 'import torch\nimport torch.nn as nn\n\n\nclass Short(nn.Module):\n    def __init__(self, cin: int, cout: int, stride: int):\n        super().__init__()\n        self.conv = nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1)\n        apply = cin != cout or stride != 1\n        self.shortcut = nn.Conv2d(cin, cout, kernel_size=1, stride=stride) if apply else nn.Identity()\n\n    def forward(self, x):\n        h = self.conv(x)\n        r = self.shortcut(x)\n        y = h + r\n        return y\n\n\nclass ShortIf(nn.Module):\n    def __init__(self, cin: int, cout: int, stride: int):\n        super().__init__()\n        self.conv = nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1)\n        if cin != cout or stride != 1:\n            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, kernel_size=1, stride=stride), nn.BatchNorm2d(cout))\n        else:\n            self.shortcut = nn.Identity()\n\n    def forward(self, x):\n        h = self.conv(x)\n        r = self.shortcut(x)\n        y = h + r\n        return y\n\n\nclass Before(nn.Module):\n    def __init__(self, cin: int, cout: int, stride: int):\n        super().__init__()\n        self.conv = nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1)\n        self.shortcut = nn.Conv2d(cin, cout, kernel_size=1, stride=stride) if cin != cout else nn.Identity()\n\n    def forward(self, x):\n        r = self.shortcut(x)\n        return r\n'


def _short(name):
    return {(v["function"], v["name"]): v["shape"]
            for v in analyze_source(SHORT, "short.py").infer_json()["values"]}[name]


@pytest.mark.parametrize("cls", ["Short", "ShortIf"])
def test_an_options_condition_proves_its_sizes_equal_to_the_others(cls):
    want = ["x.shape[0]", "cout", "(x.shape[2] - 1)//stride + 1", "(x.shape[3] - 1)//stride + 1"]
    assert _short((cls + ".forward", "r")) == want
    assert _short((cls + ".forward", "y")) == want


@pytest.mark.parametrize("cls", ["Short", "ShortIf"])
@pytest.mark.parametrize("cin,cout,stride", [(4, 4, 1), (4, 6, 1), (4, 4, 2), (3, 5, 2)])
def test_the_aligned_shortcut_is_torchs(cls, cin, cout, stride):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SHORT, "short.py", "exec"), ns)
    x = torch.empty(2, cin, 7, 10, device="meta")
    r = ns[cls](cin, cout, stride).to("meta").shortcut(x)
    env = {"x": types.SimpleNamespace(shape=x.shape), "cout": cout, "stride": stride}
    assert list(r.shape) == [eval(d, {}, env) for d in _short((cls + ".forward", "r"))]


def test_a_condition_that_proves_nothing_leaves_the_sizes_unknown():
    # called before anything ties x's channels to cin, and with the stride free in both options
    assert _short(("Before.forward", "r")) == ["x.shape[0]", "?", "?", "?"]


WRITTEN = '''import torch.nn as nn


class Written(nn.Module):
    def __init__(self, c: int, act: bool):
        super().__init__()
        proj = [nn.Conv2d(c, c, kernel_size=1)]
        if act:
            proj = proj + [nn.ReLU()]
        proj.append(nn.Flatten())
        self.proj = nn.Sequential(*proj)

    def forward(self, x):
        y = self.proj(x)
        return y
'''


@pytest.mark.parametrize("act", [False, True])
def test_a_list_choice_written_after_the_join_claims_no_option(act):
    """`proj.append(x)` on a choice of lists (list_choices.written): no option holds the layer
    appended, so the Sequential built from it is not one of the options' (they keep the input's
    rank, torch's output is flat)."""
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(WRITTEN, "written.py", "exec"), ns)
    y = ns["Written"](4, act).to("meta")(torch.empty(2, 4, 8, 8, device="meta"))
    assert tuple(y.shape) == (2, 256)
    got = _values(WRITTEN).get(("Written.forward", "y"))
    assert got is None or len(got) == 2 or got[-1] == "*?", got
