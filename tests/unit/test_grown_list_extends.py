"""`layers += [block]` (or `layers.extend([a, b])`) in a loop grows the list by those items each
pass, as `append` does: the loop's second pass records each item of a list or tuple of known
items (grown_lists.record), so `nn.Sequential(*layers)` keeps the layout of its first layers then
some number of one pass's layers (a group, when a pass adds several: grown_lists.settle,
layer_tails.grown_layers). It was a list of unknown items: the stack's width was unknown
(timm's Swin builds its stages with `layers += [Stage(...)]`)."""
from shapehint.analysis.api import analyze_source
from shapehint.analysis.grown_lists import record
from shapehint.shapes.values import ListV, TupleV, UnknownV

SRC = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, c: int, n: int):
        super().__init__()
        layers = [nn.Linear(3, c)]
        for i in range(n):
            layers += [nn.Linear(c, c)]
        self.body = nn.Sequential(*layers)
        pairs = [nn.Linear(3, c)]
        for i in range(n):
            pairs.extend((nn.ReLU(), nn.Linear(c, c)))
        self.pairs = nn.Sequential(*pairs)
        wide = [nn.Linear(3, c)]
        w = c
        for i in range(n):
            wide += [nn.Linear(w, 2 * w)]
            w = 2 * w
        self.wide = nn.Sequential(*wide)

    def forward(self, x):
        y = self.body(x)
        p = self.pairs(x)
        q = self.wide(x)
        return y, p, q
'''


def _forward():
    res = analyze_source(SRC, "extends.py").infer_json()
    assert not res["diagnostics"]
    return {v["name"]: v["shape"] for v in res["values"] if v["function"] == "Net.forward"}


def test_an_augmented_list_literal_is_an_append():
    # (was [*x, ?]: the list's items were unknown)
    assert _forward()["y"] == ["*x", "c"]


def test_a_pass_that_extends_by_two_layers_is_a_group():
    assert _forward()["p"] == ["*x", "c"]


def test_a_width_that_grows_each_pass_is_not_claimed():
    shape = _forward()["q"]
    assert shape is not None and shape[-1] == "?", shape


def test_torch_the_stacks_keep_or_grow_the_width():
    torch = __import__("pytest").importorskip("torch")
    ns: dict = {}
    exec(compile(SRC, "extends.py", "exec"), ns)
    with torch.device("meta"):
        y, p, q = ns["Net"](4, 2)(torch.empty(5, 2, 3))
        y0, p0, q0 = ns["Net"](4, 0)(torch.empty(5, 2, 3))
    assert list(y.shape) == list(p.shape) == list(y0.shape) == list(p0.shape) == list(q0.shape) == [5, 2, 4]
    assert list(q.shape) == [5, 2, 16]


def test_record_takes_each_known_item_and_nothing_of_an_unknown_iterable():
    lst = ListV(None)
    lst.appends = []
    a, b = UnknownV("a"), UnknownV("b")
    record(lst, "extend", [ListV([a])])
    record(lst, "extend", [TupleV((b, a))])
    assert lst.appends == [a, b, a]
    record(lst, "extend", [UnknownV("iterable")])
    assert lst.appends[-1] is None
