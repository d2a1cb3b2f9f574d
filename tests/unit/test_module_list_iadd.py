"""`self.layers += [Block(...)]` on an `nn.ModuleList` extends it in place, as `extend` does
(`ModuleList.__iadd__`), like `+=` on a list (executor.s_AugAssign). It was a binary `+` on a
layer, unknown: a loop over the layers gave no shape (torchvision's MaxViT builds its stages so)."""
import torch

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.layers = nn.ModuleList()
        chans = [3, 8, 16]
        for i in range(2):
            self.layers += [nn.Conv2d(chans[i], chans[i + 1], 3, padding=1)]
        self.same = nn.ModuleList([nn.Linear(5, 6)])
        alias = self.same
        alias += [nn.Linear(6, 7)]
        self.wide = nn.ModuleList()
        w = 6
        for i in range(n):
            self.wide += [nn.Linear(w, 2 * w)]
            w = 2 * w

    def forward(self, x, t):
        for layer in self.layers:
            x = layer(x)
        for layer in self.same:
            t = layer(t)
        u = t[:, :6]
        for layer in self.wide:
            u = layer(u)
        return x, t, u
'''


def _run():
    ns: dict = {}
    exec(compile(SRC, "iadd.py", "exec"), ns)
    with torch.device("meta"):
        net = ns["Net"](3)
        return net(torch.empty(2, 3, 32, 32), torch.empty(4, 5))


def _forward():
    res = analyze_source(SRC, "iadd.py").infer_json()
    assert not res["diagnostics"]
    return {(v["line"], v["name"]): v["shape"] for v in res["values"] if v["function"] == "Net.forward"}


def test_known_count_loop_over_an_augmented_module_list():
    x, _, _ = _run()
    assert tuple(x.shape) == (2, 16, 32, 32)
    shape = _forward()[(23, "x")]
    # both passes join (the channels differ: 8 then 16); before, no shape at all
    assert shape == ["x.shape[0]", "?", "x.shape[2]", "x.shape[3]"], shape


def test_an_alias_sees_the_layers_added_in_place():
    _, t, _ = _run()
    assert tuple(t.shape) == (4, 7)
    # the loop's passes join (6, then 7): not the single 6 main claimed, having lost the alias's `+=`
    shape = _forward()[(25, "t")]
    assert shape[-1] in ("?", "*?", 7), shape


def test_a_width_that_grows_each_pass_is_not_claimed():
    _, _, u = _run()
    assert tuple(u.shape) == (4, 48)
    shape = _forward().get((28, "u"))
    assert shape is None or shape[-1] in ("?", "*?"), shape
