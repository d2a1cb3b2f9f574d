"""A loop of unknown trip count that appends a stage and, under an `if` on the loop index, a
downsampling layer to one list (torchvision's Swin `features`): the undecided `if` erased the
list's items in the first pass (arm_lists.py), so it had no layout and `nn.Sequential(*layers)`
was unknown. Now the second pass records what it appends, those in an undecided arm optional
(grown_lists.erased_locals, InArm), and the container runs its first layers, then some number
of one pass's group, each option of the optional layers (layer_tails.grown_layers).

The stage width doubles each pass (16 -> 32 for `depths=[2, 2]` in torch), so no answer may claim
one pass's width (`embed_dim`, `2*embed_dim`) for the output."""
import ast

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn


class Permute(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 3, 1)


class Merge(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.red = nn.Linear(4 * dim, 2 * dim)

    def forward(self, x):
        x0 = x[..., 0::2, 0::2, :]
        x1 = x[..., 1::2, 0::2, :]
        x2 = x[..., 0::2, 1::2, :]
        x3 = x[..., 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1)
        return self.red(x)


class Net(nn.Module):
    def __init__(self, embed_dim: int, depths: list[int]):
        super().__init__()
        layers: list[nn.Module] = []
        layers.append(nn.Sequential(nn.Conv2d(3, embed_dim, 4, 4), Permute()))
        for i_stage in range(len(depths)):
            stage: list[nn.Module] = []
            dim = embed_dim * 2 ** i_stage
            for i_layer in range(depths[i_stage]):
                stage.append(nn.Linear(dim, dim))
            layers.append(nn.Sequential(*stage))
            if i_stage < (len(depths) - 1):
                layers.append(Merge(dim))
        self.features = nn.Sequential(*layers)

    def forward(self, x):
        y = self.features(x)
        return y
'''


def _forward_y():
    res = analyze_source(SRC, "stages.py").infer_json()
    return next((v["shape"] for v in res["values"] if v["function"] == "Net.forward" and v["name"] == "y"), None)


def test_the_stem_then_some_passes():
    # (was unknown: the list had no layout)
    assert _forward_y() == ["x.shape[0]", "?", "?", "?"]


def test_no_single_pass_width_is_claimed():
    shape = _forward_y()
    assert shape[-1] == "?", shape


def test_the_first_merge_reads_the_stem_output():
    res = analyze_source(SRC, "stages.py").infer_json()
    x0 = next(v for v in res["values"] if v["function"] == "Merge.forward" and v["name"] == "x0")
    shapes = [c["shape"] for c in x0["contexts"]]
    assert ["x.shape[0]", "(x.shape[2]//4 - 1)//2 + 1", "(x.shape[3]//4 - 1)//2 + 1", "?"] in shapes
    assert not res["diagnostics"]


def test_torch_doubles_the_width_past_each_merge():
    torch = __import__("pytest").importorskip("torch")
    ns: dict = {}
    exec(compile(SRC, "stages.py", "exec"), ns)
    with torch.device("meta"):
        m = ns["Net"](16, [2, 2])
        y = m(torch.empty(1, 3, 32, 32))
    assert list(y.shape) == [1, 4, 4, 32]


def test_torch_the_first_merge_halves_the_stem_grid():
    torch = __import__("pytest").importorskip("torch")
    ns: dict = {}
    exec(compile(SRC, "stages.py", "exec"), ns)
    seen = []
    with torch.device("meta"):
        m = ns["Net"](16, [2, 2])
        m.features[2].register_forward_hook(lambda mod, i, o: seen.append(list(i[0].shape)))
        m(torch.empty(1, 3, 32, 32))
    assert seen == [[1, 8, 8, 16]]  # (32 - 1)//4 ... : H//4 = 8, the merge then gives (8 - 1)//2 + 1 = 4


# the optional layer changes the width: dropping it would claim `c`
WIDEN = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, c: int, n: int):
        super().__init__()
        layers = [nn.Linear(c, c)]
        w = c
        for i in range(n):
            layers.append(nn.ReLU())
            if i % 2 == 0:
                layers.append(nn.Linear(w, 2 * w))
                w = 2 * w
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        y = self.body(x)
        return y

    def each(self, x):
        for layer in self.body:
            x = layer(x)
        z = x
        return z
'''


def _shape(src, function, name):
    res = analyze_source(src, "widen.py").infer_json()
    assert not res["diagnostics"]
    return next((v["shape"] for v in res["values"] if v["function"] == function and v["name"] == name), None)


def test_an_optional_layer_joins_its_width():
    shape = _shape(WIDEN, "Net.forward", "y")
    assert shape is not None and shape[-1] == "?", shape


def test_a_loop_over_the_container_claims_no_width():
    # (a pass's group is no child: the `for` runs over the element, not the layout)
    shape = _shape(WIDEN, "Net.each", "z")
    assert shape is None or shape == ["*?"] or shape[-1] == "?", shape


def test_torch_the_optional_layer_doubles_the_width():
    torch = __import__("pytest").importorskip("torch")
    ns: dict = {}
    exec(compile(WIDEN, "widen.py", "exec"), ns)
    with torch.device("meta"):
        y = ns["Net"](4, 1)(torch.empty(2, 4))
    assert list(y.shape) == [2, 8]


def _loop(src):
    return next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.For))


def test_appends_only_statements_of_the_pass():
    from shapehint.analysis.grown_lists import _appends_only
    assert _appends_only(_loop("for i in r:\n    xs.append(a)\n    if c:\n        xs.append(b)\n"), "xs")
    # an append in a nested loop runs some number of times a pass: no group
    assert not _appends_only(_loop("for i in r:\n    xs.append(a)\n    for j in s:\n        xs.append(b)\n"), "xs")
    # an alias, a call given the list, `+=`: writes the record may not see as one item each
    assert not _appends_only(_loop("for i in r:\n    ys = xs\n    ys.append(a)\n"), "xs")
    assert not _appends_only(_loop("for i in r:\n    add(xs, a)\n"), "xs")
    assert not _appends_only(_loop("for i in r:\n    xs += [a]\n"), "xs")
    assert not _appends_only(_loop("for i in r:\n    with m:\n        xs.append(a)\n"), "xs")
