"""A transpose, an unsqueeze or a broadcast of tensors whose rank is not known, where the axes it
names may be ones known on the other side of the unknown ones (ops/edges.axiswise_or_edge,
ops/common.trailing_broadcast). `q(x).view(*x.shape[:-1], -1, d).transpose(1, 2)` — an
attention's heads in a file whose inputs are not annotated — had no value at all, so nothing
after it had one either; it is a tensor: the axes before the nearer named one, then axes of
unknown number (never a rank, nor the axes on the far side, which may be the moved ones).

Each program is analysed once, then run with torch on the meta device for every rank from 1 to 5
its operations accept: each shape the analysis claims must be the one torch computes there (the
`*` segment stands for zero or more axes)."""
import pytest

from shapehint.analysis.api import analyze_source
from tests.unit.test_edge_learning import _source, holds_at_every_rank

PROGRAMS = {
    "heads_then_transpose": """
        s = x.shape[:-1]
        h = x.view(*s, -1, 1)
        t = h.transpose(1, 2)
        u = t * 2
    """,
    "first_and_last_known_then_transpose": """
        b = x.shape[0]
        d = x.shape[-1]
        t = x.transpose(1, 2)
    """,
    "first_and_last_known_then_transpose_back": """
        b = x.shape[0]
        d = x.shape[-1]
        t = x.transpose(-2, -3)
    """,
    "first_known_then_transpose_from_the_back": """
        b = x.shape[0]
        c = x.shape[1]
        t = x.transpose(-1, -2)
    """,
    "last_known_then_unsqueeze": """
        d = x.shape[-1]
        u = x.unsqueeze(1)
    """,
    "both_known_then_unsqueeze_past_the_front": """
        d = x.shape[-1]
        b = x.shape[0]
        u = x.unsqueeze(2)
    """,
    "nothing_known_then_unsqueeze": """
        u = x.unsqueeze(2)
        v = x + 1
    """,
    "heads_times_an_unsqueezed_unknown": """
        s = x.shape[:-1]
        h = x.view(*s, -1, 1).transpose(1, 2)
        c = x.unsqueeze(1)
        m = h * c
    """,
}


def _claimed(body: str) -> dict:
    result = analyze_source(_source(body), "unknown_rank_edges.py")
    assert not [d for d in result.diagnostics if d.severity == "error"]
    return {v["name"]: v["shape"] for v in result.infer_json()["values"] if v["function"] == "f"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_claimed_shape_holds_at_every_rank_torch_accepts(name):
    holds_at_every_rank(PROGRAMS[name])


def test_the_heads_of_an_unknown_rank_are_a_tensor():
    # `[*x, ?, 1].transpose(1, 2)`: axis 1 is the `?` when x is 2-D, one of x's when it is more
    claimed = _claimed(PROGRAMS["heads_then_transpose"])
    assert claimed["h"][-1] == 1
    assert claimed["t"] is not None and claimed["u"] is not None
    assert all(str(d).startswith("*") or d == "?" for d in claimed["t"])


def test_the_axes_before_the_named_ones_are_kept():
    assert _claimed(PROGRAMS["first_and_last_known_then_transpose"])["t"][0] == "x.shape[0]"
    t = _claimed(PROGRAMS["first_and_last_known_then_transpose_back"])["t"]
    assert t[-1] == "x.shape[-1]" and "x.shape[0]" not in t
    u = _claimed(PROGRAMS["both_known_then_unsqueeze_past_the_front"])["u"]
    assert u[0] == "x.shape[0]" and "x.shape[-1]" not in u


def test_an_unsqueeze_past_the_known_axes_learns_them_where_nothing_is_on_the_other_side():
    claimed = _claimed(PROGRAMS["nothing_known_then_unsqueeze"])
    assert claimed["u"] == ["x.shape[0]", "x.shape[1]", 1, "*x"]


def test_a_product_of_two_unknown_ranks_is_a_tensor():
    assert _claimed(PROGRAMS["heads_times_an_unsqueezed_unknown"])["m"] is not None
