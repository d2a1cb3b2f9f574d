"""In-place methods that change a tensor's shape rebind it (`x.unsqueeze_(1)` changes x), and
`.H` / `.mH` have their own rules (`.H` is only for matrices)."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch


def f(x):
    B, C = x.shape
    x.unsqueeze_(1)
    y = x * 2
    z = torch.zeros(2, 3)
    z.t_()
    w = z @ torch.ones(2, 5)
    v = torch.zeros(4)
    v.resize_(2, 2)
    u = v + torch.zeros(2, 1)
    h = torch.zeros(2, 3, 4).mH
    return y, w, u, h
'''


def _shapes(r):
    return {(v.span.line, v.name): str(v.shape) for v in r.values if v.shape is not None}


def test_shape_changing_in_place_methods_rebind_the_receiver():
    s = _shapes(analyze_source(SRC, "m.py"))
    assert s[(7, "y")] == "[B, 1, C]"
    assert s[(10, "w")] == "[3, 5]"
    assert s[(13, "u")] == "[2, 2]"
    assert s[(14, "h")] == "[2, 4, 3]"


def test_conjugate_transpose_of_a_batch_is_an_error():
    r = analyze_source("import torch\nh = torch.zeros(2, 3, 4).H\n", "m.py")
    assert [d.code for d in r.diagnostics if d.severity == "error"] == ["SH102"]
