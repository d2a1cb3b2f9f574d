"""The added rules inside the analyzer (symbolic dims, Z3-backed requires): inferred shapes and errors."""
import pytest

from shapehint.analysis.api import analyze_source

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n"


def _run(body: str, params: str = 'x: Float[Tensor, "B C H W"]'):
    src = HEADER + f"def f({params}):\n" + "".join(f"    {line}\n" for line in body.strip().splitlines())
    r = analyze_source(src, "ops.py")
    shapes = {v.name: str(v.shape) for v in r.values if v.is_target and v.shape is not None}
    errors = [(d.code, d.message) for d in r.diagnostics if d.severity == "error"]
    return shapes, errors


@pytest.mark.parametrize("line,want", [
    ("y = x.unfold(3, 4, 2)", "[B, C, H, W//2 - 1, 4]"),
    ("y = torch.diagonal(x, dim1=-2, dim2=-1)", None),
    ("y = torch.fft.rfft2(x)", "[B, C, H, W//2 + 1]"),
    ("y = torch.linalg.svdvals(x)", None),
    ("y = x.lerp(torch.zeros_like(x), 0.5)", "[B, C, H, W]"),
    ("y = torch.cummax(x, dim=1).values", None),
    ("y = torch.diff(x, dim=2)", None),
    ("y = torch.broadcast_tensors(x, x[:, :1])[1]", "[B, C, H, W]"),
    ("y = F.grid_sample(x, torch.zeros(x.shape[0], 7, 9, 2))", "[B, C, 7, 9]"),
    ("y = nn.ChannelShuffle(1)(x)", "[B, C, H, W]"),
    ("y = x.mH", "[B, C, W, H]"),
])
def test_symbolic_results(line, want):
    shapes, errors = _run(line)
    assert not errors, errors
    if want is not None:
        assert shapes.get("y") == want, shapes
    else:
        assert "y" in shapes, shapes


@pytest.mark.parametrize("line,code", [
    ("y = torch.linalg.inv(x[..., :3, :4])", None),  # H = W = 2 makes it square: no error
    ("y = torch.linalg.inv(torch.zeros(2, 3, 4))", "SH101"),
    ("y = nn.PReLU(8)(torch.zeros(2, 4, 5))", "SH101"),
    ("y = x.unfold(3, 4, 0)", "SH107"),
    ("y = torch.linalg.cross(x, x[0])", "SH102"),
    ("y = torch.fft.fft(x, n=0)", "SH107"),
    ("y = torch.zeros(4, 6).copy_(torch.zeros(5, 6))", "SH106"),
])
def test_errors(line, code):
    shapes, errors = _run(line)
    assert [c for c, _ in errors] == ([code] if code else []), errors


def test_symbolic_precondition_kept():
    # C must be 3 for the cross product: no error when it can be 3, an error when the facts rule it out
    shapes, errors = _run("y = torch.linalg.cross(x, x, dim=1)")
    # the requirement makes C == 3 a fact; the name the user gave C is kept (issue 24, semantics 4)
    assert not errors and shapes["y"] == "[B, C, H, W]"
    shapes, errors = _run("y = torch.linalg.cross(x, x, dim=1)", 'x: Float[Tensor, "B 4 H W"]')
    assert [c for c, _ in errors] == ["SH101"], errors
