"""The model finder (solver/witness.py): a point it returns satisfies every predicate, checked
here by Z3 over the FactStore's own encoding, and the windowed queries it exists for are
answered without asking Z3."""
from __future__ import annotations

import z3
from hypothesis import HealthCheck, given, settings, strategies as st

from shapehint.shapes.expr import Expr, emax, emin, floordiv, mod
from shapehint.shapes.shape import disj, eq, gt, le, lt, ne
from shapehint.solver import witness
from shapehint.solver.facts import FactStore

S = Expr.sym
B, C, H, W, L, ws, h, n = (S(x) for x in ("B", "C", "H", "W", "L", "ws", "h", "n"))
WIN = emin(ws, emin(H, W))  # a window clipped to the input
PAD_H = mod(WIN - mod(H, WIN), WIN)


def _z3_holds(preds, point, lower=None, upper=None) -> bool:
    """Z3 (not the finder's evaluation) says the point satisfies the predicates and bounds."""
    enc = FactStore()
    enc._load()
    s = z3.Solver(ctx=enc._ctx)
    for p in preds:
        s.add(enc._enc_pred(p))
    for name, v in point.items():
        s.add(enc._var(name) == v)
        s.add(enc._var(name) >= (lower or {}).get(name, 1))
        if name in (upper or {}):
            s.add(enc._var(name) <= upper[name])
    return s.check() == z3.sat


def _windowed_facts():
    # a flattened feature map viewed back as B x H x W x C, a window clipped to it, the padded
    # map cut into windows of C*w*w elements, and a head split of C
    Hp, Wp = H + PAD_H, W + mod(WIN - mod(W, WIN), WIN)
    return [
        eq(C, S("D")),  # the channels a layer was built with
        eq(B * C * H * W, B * L * C),
        eq(B * C * WIN * WIN * floordiv(Hp, WIN) * floordiv(Wp, WIN), B * C * Hp * Wp),
        eq(C, n * floordiv(C, n)),
        eq(mod(C, floordiv(C, n)), 0),
        disj(eq(WIN * WIN, ws * ws), eq(WIN * WIN, 1), eq(ws * ws, 1)),
    ]


def test_padding_of_a_clipped_window_can_be_positive():
    preds = _windowed_facts() + [lt(0, PAD_H)]
    point = witness.find_model(preds, {}, {})
    assert point is not None
    assert _z3_holds(preds, point)
    assert point["L"] == point["H"] * point["W"]  # the product the equation defines


def test_a_clipped_window_can_be_more_than_one():
    preds = _windowed_facts() + [ne(C * WIN * WIN, C * WIN)]
    point = witness.find_model(preds, {}, {})
    assert point is not None and _z3_holds(preds, point)


def test_a_size_tied_to_its_factors_is_a_multiple_of_them():
    # `C % h == 0` with `h > 2` rules out every small uniform point
    preds = [eq(S("D"), C), eq(mod(C, h), 0), gt(h, 2), ne(C, h), eq(L, C * W)]
    point = witness.find_model(preds, {}, {})
    assert point is not None and _z3_holds(preds, point)
    assert point["C"] % point["h"] == 0


def test_nothing_is_found_for_contradictory_facts():
    assert witness.find_model([eq(L, H * W), gt(H * W, L)], {}, {}) is None
    assert witness.find_model([lt(0, mod(H, WIN)), eq(ws, 1)], {}, {}) is None


def test_declared_bounds_are_met():
    preds = [eq(L, H * W), gt(L, 10)]
    point = witness.find_model(preds, {}, {"H": 2, "W": 3})
    assert point is None or (point["H"] <= 2 and point["W"] <= 3)
    point = witness.find_model(preds, {"H": 0}, {"H": 5})
    assert point is not None and _z3_holds(preds, point, {"H": 0}, {"H": 5})


def test_store_answers_windowed_queries_without_z3():
    store = FactStore()
    for p in _windowed_facts():
        store.add(p)
    assert store.possible(lt(0, PAD_H)) == (True, [])
    assert store.decide(eq(PAD_H, 0)) is None  # both outcomes possible: still undecided
    assert store.queries == 0


def test_an_input_size_is_read_back_from_a_convolutions_output():
    # a patch embedding `(H - p)//p + 1` of 14 patches: only H = 224 .. 239 give it, far from
    # every value a free choice takes
    p = S("p")
    preds = [eq(floordiv(H - p, p) + 1, 14), eq(p, 16), ne(H, 16)]
    point = witness.find_model(preds, {}, {})
    assert point is not None and _z3_holds(preds, point)
    assert 224 <= point["H"] <= 239


def test_a_numerator_solved_through_stacked_divisions_and_a_remainder():
    # two stride-2 convolutions down to 7, and `3*H//4 == 5`, whose numerator 3*H can be
    # 21 only (20 .. 23 holds one multiple of 3)
    two = Expr.const(2)
    stacked = floordiv(floordiv(H - 3, two) + 1 - 3, two) + 1
    for preds in ([eq(stacked, 7)], [eq(floordiv(3 * W, Expr.const(4)), 5)], [eq(stacked * 2, L), eq(L, 2 * n), eq(n, 30)]):
        point = witness.find_model(preds, {}, {})
        assert point is not None and _z3_holds(preds, point), preds
    assert witness.find_model([eq(floordiv(3 * W, Expr.const(4)), 5)], {}, {})["W"] == 7


def test_a_chain_of_equations_is_solved_in_the_order_values_arrive():
    # each size is defined from the one before: an equation is solvable only once the previous
    # one gave its value
    xs = [S(f"x{i}") for i in range(12)]
    preds = [eq(xs[i + 1], 2 * xs[i] + 1) for i in range(11)] + [eq(xs[0], 3), gt(xs[11], 100)]
    point = witness.find_model(preds, {}, {})
    assert point is not None and _z3_holds(preds, point)
    assert point["x11"] == 2 ** 13 - 1


_ATOMS = [B, C, H, W, WIN, PAD_H, floordiv(H, ws), floordiv(H - ws, ws) + 1, mod(C, h), B * C, H * W]


@st.composite
def _preds(draw):
    out = []
    for _ in range(draw(st.integers(1, 4))):
        a, b = draw(st.sampled_from(_ATOMS)), draw(st.sampled_from(_ATOMS))
        k = draw(st.integers(0, 3))
        op = draw(st.sampled_from([eq, ne, lt, gt]))
        out.append(op(a + k, b))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_preds(), st.dictionaries(st.sampled_from(["H", "W", "ws"]), st.integers(1, 12), max_size=2))
def test_every_point_found_satisfies_the_predicates(preds, upper):
    point = witness.find_model(preds, {}, upper)
    if point is not None:
        assert _z3_holds(preds, point, {}, upper)


def _windows_counted():
    # the windowed facts with what a window partition adds (transformers-like Swin blocks): the
    # padded map cut into windows of w*w tokens, the number of windows `k` a fresh size whose
    # product with the channels the windows' elements divide, and the heads' split of the channels
    k = S("k")
    Hp, Wp = H + PAD_H, W + mod(WIN - mod(W, WIN), WIN)
    windows = B * floordiv(Hp, WIN) * floordiv(Wp, WIN)
    return _windowed_facts() + [
        eq(mod(k * C * windows, C * WIN * WIN), 0),
        eq(S("q"), WIN * WIN),
        ne(C, 0),
    ]


def test_a_padding_is_found_off_the_uniform_points():
    # every uniform point (a window of 2 over a 2 x 2 map) meets the facts and pads nothing; the
    # uneven points break the head split or the windows' divisibility: only a point moved one
    # size off a uniform one (W = 3) pads, which Z3 spent its whole limit on (~3 s) without deciding
    pad_w = mod(WIN - mod(W, WIN), WIN)
    for query in (lt(0, pad_w), disj(lt(0, pad_w), lt(0, PAD_H))):
        preds = _windows_counted() + [query]
        point = witness.find_model(preds, {}, {})
        assert point is not None and _z3_holds(preds, point), query
    store = FactStore()
    for p in _windows_counted():
        store.add(p)
    assert store.possible(lt(0, pad_w)) == (True, [])
    assert store.queries == 0


def test_a_moved_point_is_still_checked():
    # the facts force W to a multiple of the window (W == 2*ws): no move pads, nothing is found
    pad_w = mod(WIN - mod(W, WIN), WIN)
    preds = _windows_counted() + [eq(W, 2 * ws), lt(0, pad_w)]
    assert witness.find_model(preds, {}, {}) is None



def test_the_sizes_of_a_broadcast_may_differ():
    # a head count split into groups, `x*(h//g)` and `y*(h//g)`, met `h` in broadcasts (their
    # preconditions), and a padded size divides a product of it: every uneven point breaks a
    # precondition or the division, and at the uniform points `x*(h//g) == h`; moved down from
    # them (x = 1, then x = y = 1) the queries hold
    g, x, y, T, cs = (S(v) for v in ("g", "x", "y", "T", "cs"))
    q = floordiv(h, g)
    pad = mod(cs - mod(T, cs), cs)
    facts = [
        disj(eq(x * q, h), eq(x * q, 1), eq(h, 1)),
        disj(eq(emax(x * q, y * q), h), eq(emax(x * q, y * q), 1), eq(h, 1)),
        eq(mod(x * q * T + x * q * pad, x * q * cs), 0),
    ]
    lower = {"x": 0, "y": 0}
    for query in (ne(x * q, h), ne(emax(x * q, y * q), h), lt(emax(x * q, y * q), h), lt(x * q, h)):
        point = witness.find_model(facts + [query], lower, {})
        assert point is not None and _z3_holds(facts + [query], point, lower)


def test_holds_all_answers_alike_in_any_order_and_tries_the_failed_predicate_first():
    """`_holds_all` moves the predicate a point failed to the front (the search's next point is
    rejected after one evaluation): the verdict is Z3's for every predicate, whatever the order,
    and the predicates stay the same."""
    import itertools
    preds = [lt(H, W), eq(mod(H, Expr.const(2)), Expr.const(0)), gt(W, Expr.const(5)), ne(H, Expr.const(4))]
    points = [{"H": 2, "W": 7}, {"H": 4, "W": 7}, {"H": 3, "W": 7}, {"H": 2, "W": 3}, {"H": 6, "W": 9}]
    for point in points:
        expected = _z3_holds(preds, point)
        for order in itertools.permutations(preds):
            checks = list(order)
            assert witness._holds_all(point, checks, {}, {}) is expected
            assert sorted(map(str, checks)) == sorted(map(str, preds))  # (the same predicates)
            if not expected:
                assert not witness._holds_all(point, [checks[0]], {}, {})  # the failed one is first


def test_a_padding_of_derived_sizes_is_found():
    # the map a patch embedding makes, `-((-H)//p)` x `-((-W)//p)`, is what the window clips and
    # pads: at the uniform points each side is 1, so is the window, and nothing is padded; no
    # single size moved off them pads either (one side stays 1 and clips the window to 1). Both
    # sides moved up together (H = W = 5, p = ws = 2: a 3 x 3 map, windows of 2) pad by one,
    # which Z3 left undecided at its whole limit (~1 s each, transformers' Swin)
    p = S("p")
    hp, wp = -floordiv(-H, p), -floordiv(-W, p)
    win = emin(ws, emin(hp, wp))
    pad_h, pad_w = mod(win - mod(hp, win), win), mod(win - mod(wp, win), win)
    facts = [
        le(1, hp), le(1, wp),
        eq(B * C * hp * wp, B * L * C),
        eq(B * C * win * win * floordiv(hp + pad_h, win) * floordiv(wp + pad_w, win),
           B * C * (hp + pad_h) * (wp + pad_w)),
        disj(eq(win * win, ws * ws), eq(win * win, 1), eq(ws * ws, 1)),
    ]
    for query in (lt(0, pad_w), disj(lt(0, pad_w), lt(0, pad_h))):
        point = witness.find_model(facts + [query], {}, {})
        assert point is not None and _z3_holds(facts + [query], point), query
        assert point["L"] == (-(-point["H"] // point["p"])) * (-(-point["W"] // point["p"]))


def test_a_moved_point_is_scaled_to_make_a_division_exact():
    # as above, with the size a view infers (`view(-1, w*w, C)`: k) a multiple of the windows: at
    # the moved point (a 3 x 3 map padded to 4 x 4, windows of 2) k must be a multiple of 4, which
    # neither uniform value gives; the moved point is scaled in k
    p, k = S("p"), S("k")
    hp, wp = -floordiv(-H, p), -floordiv(-W, p)
    win = emin(ws, emin(hp, wp))
    pad_w = mod(win - mod(wp, win), win)
    windows = floordiv(-hp, win) * floordiv(-wp, win)  # (the ceilings, negated twice)
    facts = [
        le(1, hp), le(1, wp),
        eq(B * C * hp * wp, B * L * C),
        eq(mod(k * C * win * win, C * windows * win * win), 0),
    ]
    point = witness.find_model(facts + [lt(0, pad_w)], {}, {})
    assert point is not None and _z3_holds(facts + [lt(0, pad_w)], point)
    assert point["k"] % 4 == 0 and point["H"] > point["p"] and point["W"] > point["p"]
