"""An integer tensor with a configured number (analysis/operands.py): `distance +
config.max_positions - 1` is a relative-position index; whether the configuration holds an int or a
float is not known, so the result has the tensor's shape and no dtype. It was unknown, and so was
everything built from it (an embedding of it, the attention scores it is added to)."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from jaxtyping import Float
from torch import Tensor, nn


class Rel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.max_positions = config.max_positions
        self.emb = nn.Embedding(2 * config.max_positions - 1, 8)
        self.scale = config.scale

    def forward(self, q: Float[Tensor, "B L D"]):
        length = q.shape[1]
        left = torch.arange(length, dtype=torch.long).view(-1, 1)
        right = torch.arange(length, dtype=torch.long).view(1, -1)
        distance = left - right
        index = distance + self.max_positions - 1
        pos = self.emb(index)
        scores = torch.einsum("bld,lrd->blr", q, pos)
        picked = torch.gather(scores, 2, (left + self.max_positions).expand(q.shape[0], length, 1) - self.max_positions)
        mean = (distance * self.scale).mean()
        return index, pos, scores, picked, mean
'''

NAMES = ("index", "pos", "scores", "picked", "mean")


def _result(src=SRC):
    return analyze_source(src, "rel.py").infer_json()


def _values(src=SRC):
    return {v["name"]: v["shape"] for v in _result(src)["values"]}


def test_an_int_tensor_with_a_configured_number_keeps_its_shape():
    got = _values()
    assert got["index"] == ["L", "L"]
    assert got["pos"] == ["L", "L", 8]
    assert got["scores"] == ["B", "L", "L"]
    assert got["picked"] == ["B", "L", 1]
    assert got["mean"] == []


def test_the_dtype_is_left_unknown_so_neither_kind_is_flagged():
    # an int taken for granted would flag `mean()` (floating only); a float, the gather's index
    assert _result()["diagnostics"] == []


def test_an_operand_that_is_not_configured_stays_unknown():
    got = _values(SRC.replace("self.max_positions = config.max_positions", "self.max_positions = make()"))
    assert "index" not in got and "pos" not in got


@pytest.mark.parametrize("max_positions,scale", [(16, 0.5), (9, 2.0)])
def test_the_shapes_are_torchs(max_positions, scale):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "rel.py", "exec"), ns)
    m = ns["Rel"](types.SimpleNamespace(max_positions=max_positions, scale=scale))
    q = torch.randn(2, 5, 8)
    out = m(q)
    sizes = {"B": 2, "L": 5}
    got = _values()
    for name, t in zip(NAMES, out):
        assert [sizes.get(d, d) for d in got[name]] == list(t.shape), name
