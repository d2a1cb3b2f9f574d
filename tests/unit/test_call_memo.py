"""A call that repeats an earlier one (callmemo.py) is answered from it: a stack of layers built
alike runs its forward once. Each guard has a program that goes wrong without it: a callee that
writes, a fact added between the calls, layers built differently, a callee that returns its
argument. Without records (the questions, `check`) the memo is on; with records (the editor) it
is off, so the two must report the same diagnostics on every case program."""
import glob
import os

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.callmemo import alike
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, ModuleV, TensorV

CASES = os.path.join(os.path.dirname(__file__), "..", "cases")


def _diags(analysed) -> list:
    """Of a result, or of a session's result."""
    result = getattr(analysed, "result", analysed)
    return sorted((d.line, d.code, d.message, tuple(r.line for r in d.related)) for d in result.diagnostics)


def _run(src: str, records: bool = False):
    return analyze_session(src, "m.py", records=records)


STACK = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Block(nn.Module):
    def __init__(self, d: int, hidden: int):
        super().__init__()
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x, scale):
        h = self.down(torch.relu(self.up(self.norm(x))))
        return x + h * scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # sizes in the code, not defaults: a default is a symbol (defaults.py), and a stack of a
        # symbolic depth is a loop of unknown length, not six constructions the memo can share
        d, depth = 64, 6
        self.blocks = nn.ModuleList([Block(d, 4 * d) for _ in range(depth)])
        self.head = nn.Linear(d, 10)

    def forward(self, x: Float[Tensor, "B T 64"]):
        for block in self.blocks:
            x = block(x, 0.5)
        return self.head(x)
'''


def test_a_stack_of_layers_built_alike_runs_the_forward_once():
    fast = analyze_session(STACK, "m.py", records=False, functions={"Net.forward"})
    slow = analyze_session(STACK, "m.py", records=True, functions={"Net.forward"})
    assert fast.interp.memo.hits == 5  # blocks 2..6 repeat block 1
    assert slow.interp.memo.hits == 0  # records keep every call's context
    assert fast.interp.steps < 0.8 * slow.interp.steps  # the six blocks' construction is most of the rest
    assert _diags(fast) == _diags(slow) == []


def test_the_repeat_of_a_stack_still_reports_its_error():
    bad = STACK.replace("return self.head(x)", "return nn.Linear(32, 10)(x)")
    fast, slow = _run(bad), _run(bad, records=True)
    assert fast.interp.memo.hits >= 5
    assert len(_diags(fast)) == 1 and _diags(fast) == _diags(slow)


def test_a_callee_that_writes_to_its_argument_runs_again():
    src = '''import torch


from jaxtyping import Float
from torch import Tensor


def add(xs, t):
    xs.append(t)
    return t


def f(x: Float[Tensor, "B 4"]):
    xs = []
    add(xs, x)
    add(xs, x)
    y = torch.cat(xs, dim=1)
    assert y.shape[1] == 8
    return y
'''
    r = _run(src)
    assert r.interp.memo.hits == 0
    assert _diags(r) == []  # reusing the first call would leave one item: y [B, 4], the assert fails


def test_layers_built_differently_are_not_alike():
    src = '''import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Block(nn.Module):
    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block(8, 8)
        self.b = Block(8, 16)

    def forward(self, x: Float[Tensor, "B 8"]):
        y = self.a(x)
        z = self.b(y)
        assert z.shape[1] == 16
        return z
'''
    assert _diags(_run(src)) == []  # reusing a's call for b would give [B, 8]


class _World:
    """What CallMemo reads of an interpreter."""

    def __init__(self):
        from shapehint.analysis.journal import Journal
        self.journal = Journal()
        self.env = type("Env", (), {"rank_learning": lambda env: 0})()
        self.mutation_log, self.global_mutations, self.module_runs = [], 0, 0


def test_a_repeat_is_answered_only_while_nothing_it_can_read_changed():
    from shapehint.analysis.callmemo import CallMemo
    from shapehint.shapes.shape import eq
    from shapehint.shapes.values import ListV
    from shapehint.solver.facts import FactStore
    it, store, memo, f = _World(), FactStore(), CallMemo(), object()
    x = TensorV(Shape.of([Expr.sym("B"), Expr.const(4)]), "float32")
    xs = ListV([x])
    out = TensorV(Shape.of([Expr.sym("B"), Expr.const(8)]), "float32")

    def again():
        return memo.lookup(it, f, [TensorV(x.shape, "float32"), xs], {}, ("situation",), store)

    def first():
        memo.remember(it, f, [x, xs], {}, ("situation",), store, out, False, False)

    first()
    assert memo.result_for(again(), [x]) is out
    assert memo.lookup(it, f, [x, xs], {}, ("elsewhere",), store) is None  # another calling situation
    assert memo.lookup(it, f, [x, xs], {}, ("situation",), FactStore()) is None  # another store
    store.add(eq(Expr.sym("B"), Expr.const(3)))
    assert again() is None  # a fact since: the callee might decide more
    first()
    store.push()
    assert again() is None
    store.pop()
    first()
    it.mutation_log.append(ListV([]))  # a list the caller fills: the callee cannot see it
    assert again() is not None
    it.mutation_log.append(xs)  # a write to what the callee reads
    assert again() is None
    first()
    it.mutation_log.append(ListV([]))
    it.global_mutations = 1  # once globals were written to, any write may be visible
    assert again() is None
    it.global_mutations = 0
    first()
    it.module_runs += 1  # module code rebinds globals
    assert again() is None


def _built(src: str, fn: str = "f"):
    r = analyze_session(src, "m.py", records=False, functions={fn})
    return r, _diags(r)


BLOCK = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Block(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(x)


'''


def test_a_construction_alike_an_earlier_one_is_a_copy_of_it():
    r, diags = _built(STACK, "Net.forward")
    assert r.interp.memo.built_hits == 5 and diags == []


def test_a_construction_that_writes_to_what_it_found_runs_again():
    src = BLOCK.replace("        self.fc = nn.Linear(d, d)\n", "        self.fc = nn.Linear(d, d)\n        found.append(self.fc)\n") \
        .replace("def __init__(self, d: int):", "def __init__(self, d: int, found):") + '''def f():
    found = []
    a = Block(4, found)
    b = Block(4, found)
    w = torch.stack([m.weight for m in found])
    assert w.shape[0] == 2
    return w
'''
    r, diags = _built(src)
    assert r.interp.memo.built_hits == 0 and diags == []


def test_the_copy_and_the_original_are_apart():
    src = BLOCK + '''def f(x: Float[Tensor, "B 4"]):
    a = Block(4)
    a.fc = nn.Linear(4, 9)
    b = Block(4)
    c = Block(4)
    c.fc = nn.Linear(4, 7)
    y = b(x)
    assert y.shape[1] == 4
    return y
'''
    # b is not a copy of the rewritten a; c is b's copy, and rewriting it leaves b alone
    r, diags = _built(src)
    assert r.interp.memo.built_hits == 1 and diags == []


def test_arguments_kept_by_a_copy_are_the_repeats_own():
    src = BLOCK + '''class Wrap(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner


def f(x: Float[Tensor, "B 4"]):
    w1 = Wrap(Block(4))
    b2 = Block(4)
    w2 = Wrap(b2)
    b2.fc = nn.Linear(4, 7)
    y = w2.inner(x)
    assert y.shape[1] == 7
    return y
'''
    r, diags = _built(src)
    assert r.interp.memo.built_hits == 2 and diags == []  # b2 copies w1's block; w2 copies w1


def test_a_callee_that_returns_its_argument_gives_back_the_repeats_own():
    src = '''import torch
import torch.nn as nn


def same(t):
    return t


def f():
    x1 = torch.zeros(3, 4)
    x2 = torch.zeros(3, 4)
    a = same(x1)
    b = same(x2)
    return nn.Linear(5, 2)(b)
'''
    r = _run(src)
    assert r.interp.memo.hits == 1
    [d] = r.result.diagnostics
    lines = [rel.line for rel in d.related]
    assert 11 in lines and 10 not in lines  # b was made on line 11 (x2), not line 10
    assert _diags(r) == _diags(_run(src, records=True))


def test_no_repeat_is_answered_while_module_code_rebinds_globals():
    src = '''import torch
import torch.nn as nn

SCALE = 2


def g(t):
    return t.reshape(-1, SCALE)


def h(t):
    return g(t)


x = torch.zeros(4, 6)
a = h(x)
SCALE = 4
b = h(x)
y = nn.Linear(4, 3)(b)
'''
    r = _run(src)
    assert r.interp.memo.hits == 0
    assert _diags(r) == []  # the first call's [12, 2] would not fit Linear(4, 3)


def test_alike_compares_what_a_callee_can_read():
    t = TensorV(Shape.of([Expr.sym("B"), Expr.const(4)]), "float32")
    same_shape = TensorV(Shape.of([Expr.sym("B"), Expr.const(4)]), "float32", origin=None)
    other = TensorV(Shape.of([Expr.sym("B"), Expr.const(5)]), "float32")
    assert alike([t], [same_shape]) and not alike([t], [other])
    lin = ModuleV("torch.nn.Linear", {"in_features": IntV(Expr.const(4)), "bias": True})
    lin2 = ModuleV("torch.nn.Linear", {"in_features": IntV(Expr.const(4)), "bias": True})
    lin3 = ModuleV("torch.nn.Linear", {"in_features": IntV(Expr.const(4)), "bias": False})
    assert alike(lin, lin2) and not alike(lin, lin3)
    assert not alike(lin, t)
    assert not alike(object(), object())  # a kind it does not know is never alike


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(CASES, "[a-z]*.py"))),
                         ids=lambda p: os.path.basename(p))
def test_memo_changes_no_diagnostic_of_a_case_program(path):
    src = open(path).read()
    assert _diags(analyze_source(src, path, records=False)) == _diags(analyze_source(src, path, records=True))


def test_a_copy_names_and_places_its_layers_as_the_construction_left_them():
    # `h.fc = a.fc` moves a.fc's span to line 23 after a was built; b's copy keeps line 9, and
    # the layer's label (`nn.Linear(d, d)`, set beside its fields)
    src = BLOCK.replace("def forward(self, x):\n        return self.fc(x)\n", "def forward(self, x):\n        return self.fc(x)\n\n\nclass Holder(nn.Module):\n    def __init__(self):\n        super().__init__()\n") + \
        '''def f(x: Float[Tensor, "B 3"]):
    a = Block(4)
    h = Holder()
    h.fc = a.fc
    b = Block(4)
    return b.fc(x)
'''
    fast, slow = _built(src)
    assert fast.interp.memo.built_hits == 1
    [d] = fast.result.diagnostics
    assert d.message.startswith("nn.Linear(d, d) expects") and 10 in [r.line for r in d.related]
    assert diags_equal(fast, src)


def diags_equal(fast, src) -> bool:
    return _diags(fast) == _diags(analyze_source(src, "m.py", records=True, functions={"f"}))
