"""A tuple whose length differs between paths keeps the items every path has at its end
(analysis/open_tuples.py: `OpenTupleV.tail`): `outputs = (hidden,)` then, under a flag,
`outputs = (weights,) + outputs` ends with the hidden states on both paths, so `outputs[-1]` is
known. The program is tests/unit/values/tuple_tails.py; each claimed shape is compared with
torch's on both paths, and what is not at the end on every path stays unknown."""
import pytest

from shapehint.analysis.objects import OpenTupleV
from shapehint.analysis.open_tuples import added, item, joined
from shapehint.shapes.expr import Expr
from shapehint.shapes.values import IntV, TupleV, StrV

from .values import answer, program


def _shape(function, name):
    got = [v for v in answer("tuple_tails")["values"] if v["function"] == function and v["name"] == name]
    return got[0]["shape"] if got else None


@pytest.mark.parametrize("function,name,claimed,observed", [
    ("last_item", "last", ["b", "t", "d"], [2, 5, 3]),
    ("grown", "end", ["b", "d"], [2, 3]),
    ("put_in_front", "last", ["b", "t", "d"], [2, 5, 3])])
@pytest.mark.parametrize("flag", [False, True])
def test_the_last_items_every_path_has(function, name, claimed, observed, flag):
    import torch
    assert _shape(function, name) == claimed
    assert list(getattr(program("tuple_tails"), function)(torch.randn(2, 5, 3), flag).shape) == observed


def test_an_item_not_at_the_end_on_every_path_is_not_known():
    import torch
    mod = program("tuple_tails")
    assert _shape("before_the_end", "before") is None
    x = torch.randn(2, 5, 3)
    assert list(mod.before_the_end(x, False).shape) == [2, 5, 3]
    assert list(mod.before_the_end(x, True).shape) == [2, 5, 3]  # (y on both, but not read off the tail)
    # appended at the end on one path: the last item differs, its last axis is not known
    assert _shape("different_ends", "last") == ["b", "t", "?"]
    assert list(mod.different_ends(x, False).shape) == [2, 5, 3]
    assert list(mod.different_ends(x, True).shape) == [2, 5, 5]


def _s(v):
    return StrV(v)


def _join(vals):
    return vals[0] if all(v is vals[0] for v in vals) else StrV(None)


def test_tails_joined_indexed_and_added():
    a, b, c = _s("a"), _s("b"), _s("c")
    t = joined([TupleV((a,)), TupleV((b, a))], _join)
    assert isinstance(t, OpenTupleV) and t.head[0].value is None and t.tail == (a,)
    assert item(t, IntV(Expr.const(-1))) is a
    assert not isinstance(item(t, IntV(Expr.const(-2))), StrV)
    assert added(t, TupleV((c,))).tail == (c,)          # what was added is the end now
    assert added(t, TupleV(())).tail == (a,)
    assert added(TupleV((c,)), t).tail == (a,) and added(TupleV((c,)), t).head[0] is c
    assert joined([TupleV(()), TupleV((a,))], _join) is None  # nothing common at either end
