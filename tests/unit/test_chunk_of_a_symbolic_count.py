"""`x.chunk(n)` with a number of chunks known only by name (`config.chunk_size`): pieces of
dimension `dim` of a size not known, as many as that takes (a list of unknown length), the other
axes kept. `pieces.if_counted` compared the unknown count with 1 and the rule failed, so the
pieces, and every chunked feed-forward after them, were unknown."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from jaxtyping import Float
from torch import Tensor, nn


class Chunked(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.chunks = config.chunks

    def forward(self, x: Float[Tensor, "B L D"]):
        pieces = x.chunk(self.chunks, dim=1)
        first = pieces[0]
        doubled = torch.cat([p * 2 for p in pieces], dim=1)
        return first, doubled
'''


def _values():
    return {v["name"]: v["shape"] for v in analyze_source(SRC, "chunked.py").infer_json()["values"]}


def test_the_pieces_keep_the_other_axes():
    got = _values()
    assert got["first"][0] == "B" and got["first"][2] == "D"
    assert got["doubled"][0] == "B" and got["doubled"][2] == "D"
    assert len(got["first"]) == len(got["doubled"]) == 3


@pytest.mark.parametrize("chunks", [1, 3, 8])
def test_the_known_axes_are_torchs(chunks):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "chunked.py", "exec"), ns)
    first, doubled = ns["Chunked"](types.SimpleNamespace(chunks=chunks))(torch.randn(2, 5, 4))
    got = _values()
    for name, t in (("first", first), ("doubled", doubled)):
        assert [d for d in got[name] if isinstance(d, int) or d in "BD"] == ["B", "D"]
        assert (t.shape[0], t.shape[2]) == (2, 4)
