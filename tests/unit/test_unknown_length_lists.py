"""`a + b` of lists, one of unknown length (sequence_arith._of_unknown_length): `to_cat + [x]`
where `to_cat` holds one token on one path and two on another (arm_lists.py joins it to a list
of unknown length). The sum is a list of unknown length whose item is the join of theirs, so
`torch.cat(..., dim=1)` keeps the axes every item agrees on (batch, width) and claims no length
on the concatenated axis. Before, the sum was unknown and so was every line after it. The
claims are checked against torch (meta tensors) on each path."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch


def tokens(x, n: int, extra: bool):
    x = x.view(4, 6, 8)
    cls = x[:, :1]
    to_cat = [cls]
    if extra:
        to_cat.append(x[:, :n])
    y = torch.cat(to_cat + [x], dim=1)
    z = torch.cat([x] + to_cat, dim=1)
    w = y.sum(1)
    return y, z, w
'''


def _shapes():
    values = analyze_source(PROGRAM, "unknownlength.py").infer_json()["values"]
    return {v["name"]: v["shape"] for v in values if v["function"] == "tokens" and v["name"] in "yzw"}


def _torch(n: int, extra: bool):
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "unknownlength.py", "exec"), ns)
    return [tuple(t.shape) for t in ns["tokens"](torch.empty(4, 6, 8, device="meta"), n, extra)]


def _agrees(claimed, observed) -> bool:
    return len(claimed) == len(observed) and all(not isinstance(c, int) or c == o for c, o in zip(claimed, observed))


def test_the_sum_keeps_the_axes_the_items_agree_on():
    got = _shapes()
    assert got["y"] == [4, "?", 8]
    assert got["z"] == [4, "?", 8]
    assert got["w"] == [4, 8]


@pytest.mark.parametrize("n, extra", [(2, True), (3, True), (2, False)])
def test_torch_agrees_on_every_path(n, extra):
    got = _shapes()
    for name, observed in zip("yzw", _torch(n, extra)):
        assert _agrees(got[name], observed), (name, got[name], observed)
