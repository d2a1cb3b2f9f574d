"""`torch.finfo(dtype)`: a float dtype's limits are floats of unknown value (objects.FloatLimits,
classvalues.other_attr), so an extended attention mask, `(1.0 - m) * torch.finfo(dtype).min`,
keeps its shape (before, the unknown `finfo` made the mask, and every block it reached, unknown).
The claims are checked against torch."""
import torch

from shapehint.analysis.api import analyze_source

SRC = '''import torch


def extend(x: torch.Tensor, m: torch.Tensor):
    a = m[:, None, None, :]
    a = a.to(dtype=x.dtype)
    a = (1.0 - a) * torch.finfo(x.dtype).min
    b = torch.full((3, 4), torch.finfo(torch.float16).max)
    e = x * torch.finfo().eps
    bits = torch.finfo(x.dtype).bits
    f = x * bits
    return a, b, e, f


def run(x, m):
    return extend(x, m)
'''


def _shapes() -> dict:
    r = analyze_source(SRC, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    return {(v["line"], v["name"]): v["shape"] for v in r.infer_json()["values"]}


def test_a_limit_is_a_float_so_the_mask_keeps_its_shape():
    s = _shapes()
    assert s[(7, "a")] == ["m.shape[0]", 1, 1, "*m"]
    assert s[(8, "b")] == [3, 4]
    assert s[(9, "e")] == ["*x"]


def test_an_attribute_that_is_not_a_float_limit_stays_unknown():
    assert _shapes().get((11, "f")) is None  # (`bits` is an int the analysis does not claim)


def test_the_claims_agree_with_torch():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    with torch.device("meta"):
        x, m = torch.empty(2, 5, 7), torch.empty(2, 7)
        a, b, e, f = ns["extend"](x, m)
    assert list(a.shape) == [2, 1, 1, 7]  # [m.shape[0], 1, 1, *m] with m's rest [7]
    assert list(b.shape) == [3, 4]
    assert list(e.shape) == list(x.shape)
