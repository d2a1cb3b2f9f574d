"""FactStore._refuted_by_bounds: a query the symbols' bounds alone refute is refuted under any facts
(what they force is entailed), asked of Z3 once per (query, bounds) in one analysis job (its
Session), not once per fact sequence; and FactStore._check's answers per relevant slice."""
from shapehint.shapes.expr import Expr, written_mod
from shapehint.shapes.shape import eq, ge, le, ne
from shapehint.solver.contexts import Session
from shapehint.solver.facts import FactStore

H, W = Expr.sym("H"), Expr.sym("W")
# H padded up to a multiple of 7 (as F.pad before window partition), its padding as written: `%`
# writes it as the multiple, `7*((H - 1)//7) + 7`, whose bounds the store decides without Z3
PADDED = H + written_mod(-(H % 7), Expr.const(7))


def _with_fact(**kw) -> FactStore:
    st = FactStore(**kw)
    st.add(le(H, 10_000))  # a fact about H: the query's slice is not empty, so Z3 is needed
    return st


def test_padded_size_bound_is_entailed_once_for_many_fact_sequences():
    st = _with_fact()
    assert st.entails(ge(PADDED - 7, 0))  # H >= 1 pads to at least 7
    st.add(ge(H * 2, 2))
    assert st.entails(ge(PADDED - 7, 0))  # refuted again under new facts: now asked without them
    asked = st.queries
    for k in range(3, 30):  # new facts about H each time: neither the per-state nor the slice cache answers
        st.add(ge(H * k, k))
        assert st.entails(ge(PADDED - 7, 0))
    assert st.queries == asked


def test_a_jobs_stores_share_the_answers_and_bounds_are_part_of_the_key():
    job = Session()
    assert _with_fact(session=job).entails(ge(PADDED - 7, 0))
    second = _with_fact(session=job)
    second.add(le(H, 100))
    assert second.entails(ge(PADDED - 7, 0)) and second.queries == 1  # asked once without the facts
    third = _with_fact(session=job)
    third.add(le(H, 50))
    assert third.entails(ge(PADDED - 7, 0)) and third.queries == 0
    st = _with_fact(session=job)
    st.declare("H", lo=0)  # H == 0 pads to 0: 0 - 7 < 0
    assert not st.entails(ge(PADDED - 7, 0))
    assert _with_fact(session=job, lower={"H": 8}).entails(ge(PADDED - 14, 0))
    assert not _with_fact(session=job).entails(ge(PADDED - 14, 0))


def test_what_only_facts_force_is_still_entailed():
    st = FactStore()
    assert not st.entails(le(H, W))
    st.add(eq(H, W))
    assert st.entails(le(H, W))
    st2 = FactStore(session=st.session)
    assert not st2.entails(le(H, W))  # the memo said "not by bounds", never "not entailed"


def test_an_interrupted_store_entails_nothing_new():
    st = _with_fact()
    st.interrupted = True
    assert not st.entails(ge(PADDED - 7, 0))
    assert not st._by_bounds_memo  # an interrupted answer is never remembered


def test_an_answer_is_the_relevant_slices_whatever_else_the_facts_hold():
    """FactStore._check without a core: the same set of relevant predicates gets the same answer,
    computed once, though unrelated or repeated facts make a new fact sequence."""
    st = FactStore()
    st.add(eq(H % 7, 3), "first")
    work: list = []
    decide = st._decide_without_z3
    st._decide_without_z3 = lambda preds: work.append(preds) or decide(preds)
    assert st.entails(ge(H, 3))  # not by bounds alone (H == 1), by the fact
    done = len(work)
    assert done > 0
    st.add(ge(W, 2))  # unrelated to H
    st.add(eq(H % 7, 3), "again")  # the same predicate
    assert st.entails(ge(H, 3)) and len(work) == done
    st.add(le(H, 100))  # a new relevant fact: a new slice, asked again
    assert st.entails(ge(H, 3)) and len(work) == done + 1
    ok, core = st.possible(le(H, 2))  # a core names origins: never answered from a slice
    assert ok is False and ("first" in core or "again" in core)


def test_a_query_satisfiable_with_facts_is_never_asked_without_them():
    """Z3 on a satisfiable query without the facts that pin its sizes can be slow: a query Z3 found
    satisfiable under some facts is satisfiable under the bounds alone, known without asking."""
    job = Session()
    for hi in (100, 200, 300):
        st = FactStore(session=job)
        st.add(ne(H, 3))  # with `H % 7 == 3`: outside the no-Z3 procedure (test_solver.Z3_ONLY)
        st.add(le(H, hi))
        assert not st.entails(ne(H % 7, 3))  # H == 10
        assert st.queries == 1  # the query with the facts only
    assert list(job.by_bounds.values()) == [False]
