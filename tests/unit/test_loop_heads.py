"""A loop of unknown count has settled only when what its head reads reads as it did when the
last pass began (analysis/loop_heads.py, controlflow `_loop_once`).

A pass may learn the rank of a tensor the head reads (a decoder layer's attention unpacking its
heads learns that the input ids' segment is empty): the value is the same object, but it reads
`[b, t, c]` now, and what the pass recorded before it learned that is in the segment's terms.
Another pass records the shapes every pass has (issue 28: Mistral's and Llama's attention
lines, in the real-model referee: hf_llama raw 37 -> 46 right, hf_mistral 32 -> 33)."""
from shapehint.analysis import loop_heads
from shapehint.analysis.interp import Interp
from shapehint.analysis.sink import Sink
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV


def _head():
    it = Interp("m.py", [], Sink("m.py"))
    t = TensorV(Shape((Expr.sym("b"),), it.fresh_star(), (Expr.sym("c"),)))
    env = {"h": t, "n": IntV(Expr.sym("n"))}
    return it, t, env


def test_a_pass_that_learns_nothing_has_settled():
    it, t, env = _head()
    read = loop_heads.shapes_read(it, env, {"h", "n"})
    assert list(read) == ["h"]
    assert loop_heads.settled(it, False, dict(env), env, {"h", "n"}, read)


def test_a_rank_learned_in_the_pass_asks_for_another():
    it, t, env = _head()
    read = loop_heads.shapes_read(it, env, {"h"})
    it.learn_rank(t, 3, None)  # (what `b, t, c = h.shape` somewhere in the body learns)
    assert it.resolve(t).rank == 3
    assert not loop_heads.settled(it, False, dict(env), env, {"h"}, read)
    # the next pass starts from the values as they now read: it settles
    again = loop_heads.shapes_read(it, env, {"h"})
    assert loop_heads.settled(it, False, dict(env), env, {"h"}, again)


def test_other_values_or_growth_still_unsettle():
    it, t, env = _head()
    read = loop_heads.shapes_read(it, env, {"h"})
    other = dict(env, h=TensorV(Shape((Expr.sym("b"), Expr.sym("c")))))
    assert not loop_heads.settled(it, False, other, env, {"h"}, read)
    assert not loop_heads.settled(it, True, dict(env), env, {"h"}, read)
