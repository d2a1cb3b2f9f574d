"""Contiguity through chains of operations, against PyTorch: a `view` after an elementwise op on a
transposed tensor fails exactly when PyTorch's does."""
import pytest
import torch

from shapehint.analysis.api import analyze_source

CHAINS = [
    "x.transpose(1, 2) * 2",
    "x.transpose(1, 2).relu()",
    "x.transpose(1, 2) + x.transpose(1, 2)",
    "x.transpose(1, 2).contiguous() * 2",
    "x.permute(2, 0, 1).sigmoid()",
    "x[:, :1].expand(2, 5, 4) * 1",
    "(x * 2).transpose(0, 1)",
    "x.transpose(0, 1).clone()",
]
VIEWS = ["view(2, -1)", "view(-1)", "view(2, 4, 3)", "view(8, 3)"]


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("view", VIEWS)
def test_view_after_chain(chain, view):
    x = torch.empty(2, 3, 4, device="meta")
    try:
        eval(f"({chain}).{view}", {"x": x})
        torch_ok = True
    except RuntimeError:
        torch_ok = False
    src = f"import torch\nx = torch.zeros(2, 3, 4)\ny = {chain}\nz = y.{view}\n"
    r = analyze_source(src, "chain.py")
    errors = [d for d in r.diagnostics if d.severity == "error"]
    assert (not errors) == torch_ok, (chain, view, [d.message for d in errors])
