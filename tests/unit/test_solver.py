import threading

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ge, le, lt, divides
from shapehint.solver.facts import FactStore, Limits

H, C = Expr.sym("H"), Expr.sym("C")


def test_possible_and_core():
    st = FactStore()
    st.add(eq(C, 4), ("assert", "line 3"))
    ok, core = st.possible(eq(C, 2))
    assert ok is False and core == [("assert", "line 3")]
    assert st.possible(ge(C, 2))[0] is True


def test_entails_and_decide_default_positive():
    st = FactStore()
    assert st.entails(ge(H, 1))
    assert st.decide(eq(H, 1)) is None
    st.add(ge(H, 5))
    assert st.decide(lt(H, 3)) is False


def test_push_pop_scopes_facts():
    st = FactStore()
    st.push()
    st.add(eq(H, 7))
    assert st.entails(eq(H, 7))
    st.pop()
    assert not st.entails(eq(H, 7))


def test_range_and_model():
    st = FactStore()
    st.add(le(H, 20))
    st.add(ge(H, 5))
    assert st.value_range(H) == (5, 20)
    m = st.model(names=["H"], minimize=["H"])
    assert m["H"] == 5


def test_divisibility_floor_semantics():
    st = FactStore()
    st.add(divides(12, C))
    assert st.entails(eq((C // 12) * 12, C))


def test_unknown_is_not_an_error():
    # nonlinear constraints under a tiny resource limit: unknown, reported as None, never False
    x, y, z = Expr.sym("x"), Expr.sym("y"), Expr.sym("z")
    st = FactStore(Limits(timeout_ms=5000, rlimit=200))
    st.add(eq(x * x * x + y * y * y, z * z * z))
    ok, _ = st.possible(ge(x, 1000))
    assert ok in (None, True)


def test_interrupt_stops_queries():
    st = FactStore()
    st.interrupt()
    assert st.possible(eq(H, 3))[0] is None
