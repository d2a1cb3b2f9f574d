"""A slice of the sizes of a tensor of unknown rank that cannot be written exactly
(analysis/sizes.py, `open_slice`).

`input_shape[1:]` of `input_shape = input_ids.size()`, after `input_shape[-1]` was read, is `()`
for a 1-D `input_ids` and `[*rest, t]` otherwise: no sizes around one segment say both. It was
no value at all, so GPT-2's `hidden.view((-1,) + input_shape[1:] + (d,))` had no shape; it is a
sequence of sizes of a number not known, so the view has the sizes given around them. Every
claim is checked against torch (meta tensors) for ranks 1 to 4."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.ln = nn.LayerNorm(dim)

    def forward(self, input_ids):
        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])
        hidden = self.wte(input_ids)
        output_shape = (-1,) + input_shape[1:] + (hidden.size(-1),)
        hidden = self.ln(hidden)
        out = hidden.view(output_shape)
        return out


def tail(x):
    t = x.shape[-1]
    y = torch.zeros(x.shape[2:])
    return y
'''

SIZES = [(5,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]


def _shapes():
    lines = {k + 1: ln.strip() for k, ln in enumerate(PROGRAM.splitlines())}
    return {lines[v["line"]]: v["shape"] for v in analyze_source(PROGRAM, "open_slices.py").infer_json()["values"]}


def _fits(shape, observed, dim=None) -> bool:
    """Whether `shape` (`?`, `*...` and `dim` allowed) admits `observed`."""
    star = [i for i, d in enumerate(shape) if isinstance(d, str) and d.startswith("*")]
    assert len(star) <= 1, shape
    if star:
        pre, suf = shape[:star[0]], shape[star[0] + 1:]
        if len(pre) + len(suf) > len(observed):
            return False
        pairs = list(zip(pre, observed)) + list(zip(suf, observed[len(observed) - len(suf):]))
    else:
        if len(shape) != len(observed):
            return False
        pairs = list(zip(shape, observed))
    return all(d == "?" or (d == "dim" and o == dim) or d == o for d, o in pairs)


def test_the_view_back_to_the_inputs_axes_has_the_sizes_given():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "open_slices.py", "exec"), ns)
    out = _shapes()["out = hidden.view(output_shape)"]
    assert out is not None and out[-1] == "dim" and any(str(d).startswith("*") for d in out), out
    model = ns["Stack"](10, 6)
    for sizes in SIZES:
        got = model(torch.zeros(sizes, dtype=torch.long, device="meta"))
        assert _fits(out, tuple(got.shape), dim=6), (out, sizes, tuple(got.shape))


def test_a_slice_past_the_known_axes_claims_no_size():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "open_slices.py", "exec"), ns)
    y = _shapes()["y = torch.zeros(x.shape[2:])"]
    assert y is not None and all(d == "?" or str(d).startswith("*") for d in y), y
    for sizes in SIZES:
        got = ns["tail"](torch.zeros(sizes, device="meta"))
        assert _fits(y, tuple(got.shape)), (y, sizes, tuple(got.shape))
