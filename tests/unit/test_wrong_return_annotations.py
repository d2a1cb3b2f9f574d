"""A return annotation stands for a call's results only where they are lost (a stub, a body the
analysis could not follow): `returns.all_lost`. A function whose own analysis returns a
container is not described by a tensor annotation — a layer declared `-> torch.Tensor` that
returns `(hidden_states,)` (a real seq2seq decoder layer does) — so a call whose results are
lost is unknown there, never a tensor the caller then indexes as one. Checked against torch:
the layer returns a tuple."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

WRONG = """\
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x: torch.Tensor, strict: bool = False) -> torch.Tensor:
        if strict:
            raise ValueError("strict mode is not supported")
        outputs = (self.fc(x),)
        return outputs


def run(x: torch.Tensor):
    b, t, d = x.shape
    layer = Layer(d)
    try:
        outs = layer(x, True)
    except ValueError:
        outs = layer(x)
    return outs


def stub(x: torch.Tensor) -> torch.Tensor:
    ...


def uses_stub(x: torch.Tensor):
    b, t, d = x.shape
    y = stub(x)
    return y
"""


def _values(src: str) -> dict:
    r = analyze_source(src, "m.py")
    return {(v["function"], v["line"], v["name"]): v["shape"] for v in r.infer_json()["values"]}


def test_a_tensor_annotation_on_a_function_returning_a_tuple_is_not_taken_for_its_result():
    values = _values(WRONG)
    # the call whose body raised lost its results: before, the annotation made it `Tensor[*?]`
    assert ("run", 21, "outs") not in values
    ns = {}
    exec(compile(WRONG, "m.py", "exec"), ns)
    x = torch.randn(2, 3, 4)
    out = ns["run"](x)
    assert isinstance(out, tuple) and list(out[0].shape) == [2, 3, 4]


def test_a_stubs_annotation_still_stands_for_its_result():
    values = _values(WRONG)
    assert values[("uses_stub", 33, "y")] is not None
