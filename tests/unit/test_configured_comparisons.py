"""A tensor compared with a configured number (analysis/compare.py through analysis/operands.py):
`input_ids == self.eos_token_id` is elementwise, the tensor's shape, as `input_ids + n` is. The
comparison used to pass the configured value to the rule as an opaque value, which may be a tensor
of any shape: the result was unknown, and so was the pooled row it picks
(`hidden[torch.arange(B), (ids == eos).int().argmax(-1)]`)."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from jaxtyping import Float, Int
from torch import Tensor, nn


class Pool(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.eos_token_id = config.eos_token_id
        self.threshold = config.threshold

    def forward(self, hidden: Float[Tensor, "B L H"], ids: Int[Tensor, "B L"]):
        is_eos = ids == self.eos_token_id
        not_eos = ids.to(dtype=torch.int) != self.eos_token_id
        first = is_eos.int().argmax(dim=-1)
        pooled = hidden[torch.arange(hidden.shape[0]), first]
        high = hidden > self.threshold
        kept = hidden * high
        return is_eos, not_eos, first, pooled, high, kept
'''

NAMES = ("is_eos", "not_eos", "first", "pooled", "high", "kept")


def _result(src=SRC):
    return analyze_source(src, "pool.py").infer_json()


def _values(src=SRC):
    return {v["name"]: v["shape"] for v in _result(src)["values"]}


def test_a_comparison_with_a_configured_number_keeps_the_tensors_shape():
    got = _values()
    assert got["is_eos"] == ["B", "L"]
    assert got["not_eos"] == ["B", "L"]
    assert got["first"] == ["B"]
    assert got["pooled"] == ["B", "H"]
    assert got["high"] == ["B", "L", "H"]
    assert got["kept"] == ["B", "L", "H"]
    assert _result()["diagnostics"] == []


def test_a_comparison_with_an_operand_not_configured_stays_unknown():
    # `make()` may return a tensor, whose shape would broadcast with the ids'
    got = _values(SRC.replace("self.eos_token_id = config.eos_token_id", "self.eos_token_id = make()"))
    assert "is_eos" not in got and "first" not in got and "pooled" not in got
    assert got["high"] == ["B", "L", "H"]


@pytest.mark.parametrize("eos,threshold", [(3, 0.5), (0, 0)])
def test_the_shapes_are_torchs(eos, threshold):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "pool.py", "exec"), ns)
    m = ns["Pool"](types.SimpleNamespace(eos_token_id=eos, threshold=threshold))
    out = m(torch.randn(2, 5, 4), torch.randint(0, 4, (2, 5)))
    sizes = {"B": 2, "L": 5, "H": 4}
    got = _values()
    for name, t in zip(NAMES, out):
        assert [sizes.get(d, d) for d in got[name]] == list(t.shape), name
