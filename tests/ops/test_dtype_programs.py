"""Type promotion through whole programs: operands that are float by PyTorch's promotion
(`ints / 2`, `ints * 0.5`, `torch.sqrt(ints)`) meet float-only and same-dtype rules without a
false dtype clash, and a real clash is still an error."""
import textwrap

from shapehint.analysis.api import analyze_source


def _diags(src: str) -> list:
    out = analyze_source(textwrap.dedent(src), "m.py").infer_json()
    return [(d["line"], d["code"]) for d in out["diagnostics"] if d["severity"] == "error"]


def _shape_of(src: str, name: str):
    out = analyze_source(textwrap.dedent(src), "m.py").infer_json()
    return [v["shape"] for v in out["values"] if v["name"] == name]


def test_promoted_operands_are_float():
    assert _diags("""
        import torch
        import torch.nn.functional as F

        def rope(n: int):
            t = torch.arange(n)
            inv_freq = torch.ones(4)
            freqs = torch.outer(t, inv_freq)          # int64 x float32 promotes
            scale = (torch.arange(n) / 2).unsqueeze(0)  # true division: float32
            mixed = scale @ torch.ones(n, 3)
            half = torch.arange(n) * 0.5
            p = F.log_softmax(half, dim=0)
            q = torch.softmax(torch.sqrt(torch.arange(n)), dim=0)
            return freqs, mixed, p, q
    """) == []


def test_a_real_clash_is_still_an_error():
    assert _diags("""
        import torch

        def f(n: int):
            ids = torch.arange(n).unsqueeze(0)
            return ids @ torch.ones(n, 3)
    """) == [(6, "SH107")]


def test_in_place_cast_that_loses_the_category_is_an_error():
    assert _diags("""
        import torch

        def f(n: int):
            ids = torch.arange(n)
            ids.div_(2)
            return ids
    """) == [(6, "SH107")]


def test_a_conversion_to_a_dtype_not_known_is_not_a_bool():
    # `.to(feats.dtype)` with feats' dtype unknown: the result is not known to be bool, so
    # `1 - appearing` is no "subtraction with a bool tensor"
    assert _diags("""
        import torch

        def f(x, feats):
            appearing = (x > 0).to(feats.dtype)
            return 1 - appearing
    """) == []
    assert _diags("""
        import torch

        def f(x):
            appearing = (x > 0).to(x.device)
            return 1 - appearing
    """) == [(6, "SH107")]
