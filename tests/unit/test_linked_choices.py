"""Choices made under one undecided condition are linked (analysis/linked_choices.py): a layer
that strides by `stride if first else 1` followed by one that strides by `1 if not first else
... ` — whichever arm the flag takes, the two together stride once, and the size is known.
Where the condition may differ between the two choices (the parameter rebound, a mutable
object changed, two parameters), nothing is claimed. Each shape is checked against torch
running the same program with both values of the flag."""
import torch

from shapehint.analysis.linked_choices import LINK, _settled
from shapehint.shapes.expr import Expr

from .program_runs import infer, run

PROGRAM = """import torch
import torch.nn as nn


class Linked(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 2, first: bool = False):
        super().__init__()
        self.a = nn.Conv2d(cin, cout, kernel_size=1, stride=stride if first else 1)
        self.b = nn.Conv2d(cout, cout, kernel_size=3, padding=1, stride=stride if not first else 1)

    def forward(self, x):
        y = self.b(self.a(x))
        return y


class Alone(nn.Module):
    def __init__(self, cin: int, stride: int = 2, first: bool = False):
        super().__init__()
        self.a = nn.Conv2d(cin, cin, kernel_size=1, stride=stride if first else 1)

    def forward(self, x):
        u = self.a(x)
        return u


class Rebound(nn.Module):
    def __init__(self, cin: int, stride: int = 2, first: bool = False):
        super().__init__()
        self.a = nn.Conv2d(cin, cin, kernel_size=1, stride=stride if first else 1)
        first = not first
        self.b = nn.Conv2d(cin, cin, kernel_size=1, stride=1 if first else stride)

    def forward(self, x):
        r = self.b(self.a(x))
        return r


class TwoFlags(nn.Module):
    def __init__(self, cin: int, stride: int = 2, p: bool = False, q: bool = False):
        super().__init__()
        self.a = nn.Conv2d(cin, cin, kernel_size=1, stride=stride if p else 1)
        self.b = nn.Conv2d(cin, cin, kernel_size=1, stride=1 if q else stride)

    def forward(self, x):
        t = self.b(self.a(x))
        return t


class Mutated(nn.Module):
    def __init__(self, cin, stride=2, opts=None):
        super().__init__()
        self.a = nn.Conv2d(cin, cin, kernel_size=1, stride=stride if opts else 1)
        opts.append(1)
        self.b = nn.Conv2d(cin, cin, kernel_size=1, stride=1 if opts else stride)

    def forward(self, x):
        m = self.b(self.a(x))
        return m


def linked(x, flag: bool):
    out = Linked(3, 8, 2, flag)(x)
    return out


def alone(x, flag: bool):
    one = Alone(3, 2, flag)(x)
    return one


def rebound(x, flag: bool):
    twice = Rebound(3, 2, flag)(x)
    return twice


def two_flags(x, p: bool, q: bool):
    mixed = TwoFlags(3, 2, p, q)(x)
    return mixed


def mutated(x, opts):
    changed = Mutated(3, 2, opts)(x)
    return changed
"""


def _values(tmp_path) -> dict:
    return {(v["function"], v["name"]): v for v in infer(tmp_path, PROGRAM)["values"]}


def test_two_choices_under_one_flag_compose_on_each_arm(tmp_path):
    fns = run(PROGRAM)
    for h, w in ((7, 10), (8, 8), (32, 33)):
        x = torch.empty(2, 3, h, w, device="meta")
        got = {tuple(fns["linked"](x, flag).shape) for flag in (True, False)}
        assert got == {(2, 8, (h - 1) // 2 + 1, (w - 1) // 2 + 1)}
    vals = _values(tmp_path)
    assert vals[("linked", "out")]["shape"] == ["x.shape[0]", 8, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    # the class on its own, the flag and the stride undecided
    assert vals[("Linked.forward", "y")]["shape"] == \
        ["x.shape[0]", "cout", "(x.shape[2] - 1)//stride + 1", "(x.shape[3] - 1)//stride + 1"]


def test_one_choice_alone_stays_unknown(tmp_path):
    fns = run(PROGRAM)
    x = torch.empty(2, 3, 8, 8, device="meta")
    assert {tuple(fns["alone"](x, f).shape)[2] for f in (True, False)} == {4, 8}  # the arms differ
    assert _values(tmp_path)[("alone", "one")]["shape"][2:] == ["?", "?"]


def test_choices_whose_conditions_may_differ_are_not_linked(tmp_path):
    fns = run(PROGRAM)
    x = torch.empty(2, 3, 8, 8, device="meta")
    # linked, each would claim (H - 1)//2 + 1 = 4: the runs give 2 and 8 as well
    assert {tuple(fns["rebound"](x, f).shape)[2] for f in (True, False)} == {2, 8}
    assert {tuple(fns["two_flags"](x, p, q).shape)[2] for p in (True, False) for q in (True, False)} == {2, 4, 8}
    assert tuple(fns["mutated"](x, []).shape)[2] == 8
    vals = _values(tmp_path)
    for key in (("rebound", "twice"), ("two_flags", "mixed"), ("mutated", "changed")):
        assert vals[key]["shape"][2:] == ["?", "?"], key


def test_a_size_is_settled_only_where_both_arms_agree():
    k, s, h = Expr.sym(LINK + "1"), Expr.sym("s"), Expr.sym("H")
    first, second = k * s + (1 - k), k + (1 - k) * s  # `s if c else 1`, then `1 if c else s`
    composed = ((h - 1) // first + 1 - 1) // second + 1
    assert _settled(composed) == (h - 1) // s + 1
    one = (h - 1) // first + 1
    assert _settled(one) == one  # (H - 1)//s + 1 on one arm, H on the other: kept, unknown
