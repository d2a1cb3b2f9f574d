"""Learning the first or last axes of a tensor of unknown rank (Environment.learn_edge) rewrites
its variadic segment for every tensor holding that segment, so it may only claim axes the segment
surely has. `m = x.sum(-1)` holds x's segment less x's last axis; `x[:, :, 2:]` then needs three
axes of x, one of which may be that last axis: a 3-D x gives a 2-D m, so m is not
`[x.shape[0], x.shape[1], x.shape[2], *x]`.

Each program is analysed once, then run with torch on the meta device for every rank from 1 to 5
its operations accept: each shape the analysis claims must be the one torch computes there (the
`*` segment stands for zero or more axes)."""
import textwrap

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.compare import align, eval_dim

SIZES = (7, 6, 5, 4, 3)

PROGRAMS = {
    "sum_then_slice": """
        m = x.sum(-1)
        y = x[:, :, 2:]
    """,
    "mean_then_axes_read": """
        m = x.mean(-1)
        a = x.shape[0]
        b = x.shape[1]
        c = x.shape[2]
        z = m * 2
    """,
    "front_sum_then_back_slice": """
        m = x.sum(0)
        y = x[..., 1:, 1:, 1:]
    """,
    "two_sums_then_slice": """
        m = x.sum(-1)
        n = m.sum(-1)
        y = x[:, :, :, 1:]
    """,
    "keepdim_then_slice": """
        m = x.amax(-1, keepdim=True)
        y = x[:, :, 1:]
    """,
    "copy_then_slice": """
        c = x.float()
        m = c.sum(-1)
        y = x[:, :, 2:]
        w = c[:, 1:]
    """,
    "reshape_then_slice": """
        r = x.reshape(x.shape[0], -1)
        m = x.mean(-1)
        y = x[:, :, 1:]
    """,
    "transpose_then_slice": """
        t = x.transpose(-1, -2)
        m = x.sum(-1)
        y = x[:, 1:, 0:1]
    """,
    "unsqueeze_then_slice": """
        u = x.unsqueeze(-1)
        e = x[..., None]
        m = x.sum(-1)
        y = x[:, :, 1:]
    """,
    "flatten_then_slice": """
        fl = x.flatten(1)
        v = x.view(x.size(0), -1)
        m = x.sum(-1)
        y = x[:, :, 1:]
    """,
    "sum_slice_then_unpack": """
        m = x.sum(-1)
        y = x[:, :, 2:]
        b, c, h, w = x.shape
        z = x + 1
    """,
    "back_then_front_then_rank": """
        m = x.mean(-1)
        s = x.size(1)
        e = x[:, 1:]
        b, c, h = x.shape
        z = x * 2
    """,
    "sum_then_both_edges_read": """
        m = x.sum(-1)
        b = x.shape[0]
        k = x.shape[2]
        z = m + 1
    """,
    "rank_test_arms_joined": """
        d = x.shape[-1]
        b = x.shape[0]
        if x.dim() == 2:
            y = x + 1
        else:
            y = x * 2
        z = y.sum(-1)
    """,
    "last_read_then_front_read": """
        m = x.sum(-1)
        d = x.shape[-1]
        b = x.shape[0]
        h = x.shape[1]
        y = m + 1
    """,
}


def _source(body: str) -> str:
    return "import torch\n\n\ndef f(x: torch.Tensor):\n" + textwrap.indent(textwrap.dedent(body), "    ") + \
        "    return x\n"


def _claimed(body: str) -> dict:
    values = analyze_source(_source(body), "edges.py").infer_json()["values"]
    return {v["name"]: v["shape"] for v in values if v["function"] == "f"}


def _observed(body: str, rank: int):
    """The program's tensors with torch for x of `rank` axes (None where torch rejects it)."""
    import torch
    x = torch.empty(*SIZES[:rank], device="meta")
    env = {"torch": torch, "x": x}
    try:
        exec(textwrap.dedent(body), env)
    except (IndexError, RuntimeError, ValueError):
        return None
    return {k: v for k, v in env.items() if isinstance(v, torch.Tensor) or isinstance(v, int)}


def _agrees(shape, seen, env):
    pairs = align(shape, list(seen))
    assert pairs is not None, f"{shape} claims more axes than {list(seen)}"
    for d, o in pairs:
        got = eval_dim(d, env)
        assert got in ("?", o), f"{shape} against {list(seen)}"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_claimed_shape_holds_at_every_rank_torch_accepts(name):
    holds_at_every_rank(PROGRAMS[name])


def holds_at_every_rank(body: str) -> None:
    """Every shape the analysis claims of `body` (x of unknown rank) is torch's at each rank from
    1 to 5 that torch accepts (test_unknown_rank_edges.py reads its programs so too)."""
    import torch
    claimed = _claimed(body)
    ran = 0
    for rank in range(1, 6):
        seen = _observed(body, rank)
        if seen is None:
            continue
        ran += 1
        env = {f"x.shape[{i}]": SIZES[i] for i in range(rank)}
        env.update({f"x.shape[{i - rank}]": SIZES[i] for i in range(rank)})
        for var, shape in claimed.items():
            if shape is not None and isinstance(seen.get(var), torch.Tensor):
                _agrees(shape, seen[var].shape, env)
    assert ran >= 1


def test_the_segment_keeps_only_the_axes_it_surely_has():
    # x[:, :, 2:] needs three axes of x; x less its last axis surely has two of them
    claimed = _claimed(PROGRAMS["sum_then_slice"])
    assert claimed["m"] == ["x.shape[0]", "x.shape[1]", "*x"]
    assert claimed["y"][:3] == ["x.shape[0]", "x.shape[1]", "x.shape[2] - min(2, x.shape[2])"]


def test_a_tensor_with_nothing_beyond_its_segment_learns_all_its_axes():
    # nothing after the segment: every axis the slice needs is the segment's, for every holder
    claimed = _claimed("""
        c = x.float()
        y = x[:, :, 2:]
        z = c + 1
    """)
    assert claimed["z"] == ["x.shape[0]", "x.shape[1]", "x.shape[2]", "*x"]


def test_learning_from_the_back_keeps_only_the_axes_the_segment_surely_has():
    claimed = _claimed(PROGRAMS["front_sum_then_back_slice"])
    assert claimed["m"] == ["*x", "x.shape[-2]", "x.shape[-1]"]


def test_a_rank_learned_later_reaches_the_tensor_that_learned_its_own_axes():
    # x[:, :, 2:] names x's first three axes past a segment of x's own; the unpack then fixes the
    # rank of the shared segment, and with it x's and m's
    claimed = _claimed(PROGRAMS["sum_slice_then_unpack"])
    assert claimed["m"] == ["b", "c", "h"]
    assert claimed["z"] == ["b", "c", "h", "w"]
    claimed = _claimed(PROGRAMS["back_then_front_then_rank"])
    assert claimed["m"] == ["b", "c"] and claimed["z"] == ["b", "c", "h"]


def test_a_copy_and_a_join_keep_sides_that_may_be_the_same_axes():
    # x's first and last axes may be one (a 1-D x): so they may in the else arm's copy of x
    # (Environment.arm_segment), and in the join of the arms (rank_joins.common_ends), whose sum
    # over the last axis is then no `[x.shape[0], ...]`
    claimed = _claimed(PROGRAMS["rank_test_arms_joined"])
    assert claimed["y"] == ["*x", "x.shape[-1]"]
    assert claimed["z"][0] != "x.shape[0]"
