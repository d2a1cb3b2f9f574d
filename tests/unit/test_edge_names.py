"""An axis read past a segment that may be empty is named after the parameter's axis only where
that name is right whatever the segment holds (Environment.learn_edge, `_names_hold`).

`y = x.transpose(1, 2)` of an x whose first three axes are known is `[x0, x2, x1, *x]`; its last
axis is x's last axis when the segment holds some, and x1 when it holds none (a 3-D x). Named
`x.shape[-1]`, `y[..., :y.shape[-1] // 2]` claimed `[x0, x2, *?, x.shape[-1]//2]`: for a 3-D x
that is x2 // 2, where torch gives x1 // 2 (the rotary halves of an attention's transposed heads,
`rotate_half(q)`). Likewise the sum of x's second axis, `[x0, *x]`, whose last axis is x0 for a
2-D x. Such an axis is a size of its own; a value laid out as the parameter is (x itself, its
copies) still names it.

Each program is analysed once and run with torch on the meta device at every rank from 1 to 5 it
accepts (test_edge_learning.holds_at_every_rank)."""
import pytest

from tests.unit.test_edge_learning import _claimed, holds_at_every_rank

PROGRAMS = {
    # the rotary halves of transposed heads: the last axis is x1 for a 3-D x
    "transposed_last_axis_read": """
        y = x.transpose(1, 2)
        h = y[..., : y.shape[-1] // 2]
    """,
    "transposed_halves_joined": """
        y = x.transpose(1, 2)
        a = y[..., : y.shape[-1] // 2]
        b = y[..., y.shape[-1] // 2:]
        r = torch.cat((-b, a), dim=-1)
    """,
    "transposed_two_last_axes_read": """
        y = x.transpose(1, 2)
        h = y[..., 1:, 1:]
    """,
    # a reduction of a known leading axis: the last axis is x0 for a 2-D x
    "reduced_last_axis_read": """
        u = x[:, :, None]
        z = x.sum(1)
        h = z[..., : z.shape[-1] // 2]
    """,
    # a reduction of a known trailing axis read at the front: the first axis is x[-1] for 2-D
    "reduced_first_axis_read": """
        u = x[..., None, :]
        v = x[:, :, None]
        z = x.sum(-2)
        h = z[1:]
    """,
    # a layer replacing the last axis (`fc(x)`, `[*x, 7]`), then the second axis read: 7 for a
    # 2-D x, not x's second axis
    "replaced_last_axis_then_front_read": """
        y = x[..., :1] * torch.ones(7, device=x.device)
        z = y[:, 0]
    """,
    # the parameter's own layout keeps the name: x's last axis is x's last axis at any rank
    "own_last_axis_read": """
        u = x[:, :, None]
        h = x[..., : x.shape[-1] // 2]
    """,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_claimed_shape_holds_at_every_rank_torch_accepts(name):
    holds_at_every_rank(PROGRAMS[name])


def test_a_transposed_layout_reads_its_last_axis_as_a_size_of_its_own():
    claimed = _claimed(PROGRAMS["transposed_last_axis_read"])
    assert claimed["y"][:3] == ["x.shape[0]", "x.shape[2]", "x.shape[1]"]
    assert claimed["h"][:2] == ["x.shape[0]", "x.shape[2]"]
    assert "x.shape[-1]" not in claimed["h"][-1]


def test_the_parameters_own_layout_keeps_the_name():
    claimed = _claimed(PROGRAMS["own_last_axis_read"])
    assert claimed["h"][-1] == "x.shape[-1]//2"


def test_an_axis_past_which_no_parameter_axis_lies_keeps_the_name():
    # `[*x, 4]` (an embedding of ids of unknown rank): its second axis is x's second, or the 4
    # where x is 1-D, which no name of x's stands for: the name is kept (issue 28's token ids)
    body = """
        e = x[..., None] + torch.zeros(4, device=x.device)
        t = e.shape[1]
        z = e * 2
    """
    holds_at_every_rank(body)
    assert _claimed(body)["z"][:2] == ["x.shape[0]", "x.shape[1]"]
