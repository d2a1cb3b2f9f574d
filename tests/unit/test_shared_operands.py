"""Size formulas whose operations share operands are walked once per distinct operation, not
once per path to it: `solver/monotone.direction` (bounds.py's search directions) and the Z3
encoding (`FactStore._enc_atom`). A deep model's spatial size is such a formula (each block's
`max` over the previous block's size, used twice): metaformer.py's widest construction context
spent 40 s encoding and 26 s in `direction` on trees of 430,000 characters whose DAG is small.
The tests count calls, not time: walking the tree makes 2**DEPTH of them."""
import z3

from shapehint.shapes.expr import Expr, emax
from shapehint.solver import monotone
from shapehint.solver.facts import FactStore

DEPTH = 14


def _deep() -> Expr:
    """max(x + 1, 2*x) nested DEPTH times over `h`: every level holds the one below twice."""
    x = Expr.sym("h")
    for _ in range(DEPTH):
        x = emax(x + 1, 2 * x)
    return x


def _counted(monkeypatch, owner, name) -> list:
    calls: list = []
    original = getattr(owner, name)

    def counted(*args):
        calls.append(1)
        return original(*args)
    monkeypatch.setattr(owner, name, counted)
    return calls


def test_direction_visits_each_operation_once(monkeypatch):
    calls = _counted(monkeypatch, monotone, "_atom_dir")
    x = _deep()
    assert monotone.direction(x, "h", {}) == 1
    assert monotone.direction(x, "w", {}) == 0
    assert monotone.direction(Expr.sym("h") * 0 - x, "h", {}) == -1
    assert 0 < len(calls) <= 8 * DEPTH


def test_direction_of_a_product_of_shared_factors(monkeypatch):
    calls = _counted(monkeypatch, monotone, "_atom_dir")
    x = _deep()
    assert monotone.direction(x * x + Expr.sym("w"), "h", {}) == 1
    assert len(calls) <= 8 * DEPTH


def test_z3_encodes_each_operation_once(monkeypatch):
    calls = _counted(monkeypatch, FactStore, "_enc")
    x = _deep()
    st = FactStore()
    st._load()
    term = st._enc(x)
    assert len(calls) <= 8 * DEPTH
    for h in (1, 3, 7):  # the encoding means what the formula does
        got = z3.simplify(z3.substitute(term, (st._var("h"), z3.IntVal(h, st._ctx))))
        assert got.as_long() == monotone.value(x, {"h": h})
    # the same atoms met again (another query over the same size) are not encoded again
    before = len(calls)
    st._enc(x + 1)
    assert len(calls) - before == 1
