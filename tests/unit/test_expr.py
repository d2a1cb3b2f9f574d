from shapehint.shapes.expr import Expr, emax, product
from shapehint.shapes.shape import Shape, conj, eq, le, neg

H, W, C, N = (Expr.sym(n) for n in "HWCN")


def test_canonical_cancels_constants():
    assert (H + 2 - 2) == H
    assert str((H + 2 * 1 - 1 * (3 - 1) - 1) // 1 + 1) == "H"


def test_conv_stride_two_prints_readably():
    assert str((H + 2 - 3) // 2 + 1) == "(H - 1)//2 + 1"


def test_floordiv_splits_exact_part():
    assert (2 * H + 3) // 2 == H + 1
    assert (4 * C) // 4 == C
    assert str(C // 12) == "C//12"


def test_symbolic_exact_division():
    assert (N * C) // N == C
    assert (N * C) % N == 0


def test_a_negated_floor_division_prints_as_python_reads_it():
    """`-(H//4)` printed `-H//4`, which Python reads as `(-H)//4`: 2 for H = 5, not 1 (a
    consumer evaluating the printed dim got a wrong size)."""
    for e in (-(H // 4), -(H % 4), -((-H) // 4), 3 - H // 4, -(H // 4) * 2, -(H // 4) - W):
        for h in range(1, 10):
            assert eval(str(e), {"H": h, "W": 7}) == e.evaluate({"H": h, "W": 7}), (str(e), h)


def test_mod_and_eval():
    e = (H - 1) // 2 + 1
    assert e.evaluate({"H": 32}) == 16
    assert e.evaluate({"H": 33}) == 17
    assert (H % 4).evaluate({"H": 10}) == 2


def test_product_and_printing_order():
    assert str(product([N, 2, C])) == "2*C*N"
    assert str(H * W + C - 1) == "H*W + C - 1"


def test_max_of_equal_is_itself():
    assert emax(H, H) == H
    assert emax(3, 5) == 5


def test_predicates_simplify():
    assert eq(H + 1, H + 1).is_true
    assert eq(3, 4).is_false
    assert le(H, H + 1).is_true
    assert conj(eq(H, 1), eq(3, 3)) == eq(H, 1)
    assert neg(neg(eq(H, W))) == eq(H, W)


def test_shape_printing_with_unknown_rank():
    s = Shape((N,), "batch", (C,))
    assert str(s) == "[N, *batch, C]"
    assert s.to_json() == ["N", "*batch", "C"]
    assert Shape.of([2, H]).to_json() == [2, "H"]


def test_an_atom_keeps_its_hash_and_key_through_a_copy():
    import copy
    from shapehint.shapes.expr import Atom
    a = Atom("floordiv", "", (Expr.sym("H"), Expr.const(2)))
    for b in (copy.copy(a), copy.deepcopy(a), Atom("floordiv", "", (Expr.sym("H"), Expr.const(2)))):
        assert b == a and hash(b) == hash(a) and b.sort_key() == a.sort_key()
        assert {a: 1}[b] == 1


def _layered(depth: int) -> Expr:
    """A size whose every layer uses the one below twice (a DAG, as a deep model's sizes are)."""
    x = Expr.sym("H")
    for k in range(depth):
        x = emax(x // 2, x % 3) + (x - k) // 2
    return x


def test_equal_sizes_built_apart_share_their_atoms(monkeypatch):
    from shapehint.shapes.atoms import Atom
    calls = []
    structural = Atom.__eq__
    monkeypatch.setattr(Atom, "__eq__", lambda a, b: calls.append(1) or structural(a, b))
    a, b = _layered(8), _layered(8)
    assert a is not b and a == b and hash(a) == hash(b)
    assert [m for m in a.terms] == [m for m in b.terms]
    for ma, mb in zip(sorted(a.terms, key=str), sorted(b.terms, key=str)):
        assert all(x is y for x, y in zip(ma, mb))
    assert calls == []  # neither building b nor comparing it looked inside an atom
    assert a != _layered(7) and {a: 1}[b] == 1


def test_an_atom_survives_a_copy_as_itself_and_leaves_the_table_when_unused():
    import copy
    import gc
    import pickle
    from shapehint.shapes import atoms
    a = (Expr.sym("L") // 5).terms
    (m,) = a
    assert copy.deepcopy(m[0]) is m[0] and pickle.loads(pickle.dumps(m[0])) is m[0]
    key = ("floordiv", "", m[0].args)
    assert atoms._LIVE.get(key) is m[0]
    del a, m
    gc.collect()
    assert atoms._LIVE.get(key) is None


def test_a_copied_size_hashes_anew_and_equals_the_original():
    import copy
    import pickle
    e = _layered(3) + Expr.sym("W")
    hash(e)  # cached: a copy must not carry it (a process with another string-hash seed differs)
    for c in (pickle.loads(pickle.dumps(e)), copy.copy(e), copy.deepcopy(e)):
        assert c._hash is None and c == e and hash(c) == hash(e) and str(c) == str(e)
