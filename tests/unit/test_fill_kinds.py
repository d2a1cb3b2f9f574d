"""`torch.full` takes its dtype from the fill value: int64 for an int, float32 for a float, bool
for a bool. A fill value whose kind is not known (a configuration's `bos_token_id`) gives no dtype,
never float32: that guess made a false SH107 (embedding indices "float32") in a real model's
decoder. `full_like` keeps the input's dtype whatever the fill. Checked against torch."""
import os

import torch

from shapehint.analysis.api import analyze_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "values", "fill_kinds.py")


def _source():
    with open(HERE, encoding="utf-8") as f:
        return f.read()


def test_a_fill_value_of_unknown_kind_claims_no_dtype_and_no_error():
    r = analyze_source(_source(), "fill_kinds.py")
    assert [d.code for d in r.diagnostics if d.severity == "error"] == []


def test_the_program_runs_in_torch():
    ns = {}
    exec(compile(_source(), HERE, "exec"), ns)  # noqa: S102 (our own program)
    out = ns["build"]()(3)
    assert list(out.shape) == [3, 9, 16]


def test_full_like_keeps_the_input_dtype():
    text = ("import torch\n\n\ndef f(x):\n    y = torch.full_like(x, 1.5)\n    z = torch.full_like(y.long(), 1.5)\n"
            "    return y, z\n")
    got = {v.name: v.dtype for v in analyze_source(text, "fl.py").values}
    assert got.get("y") is None  # x's dtype, not known: never the fill value's float32
    assert got["z"] == str(torch.full_like(torch.zeros(2, dtype=torch.int64), 1.5).dtype).replace("torch.", "")
    assert torch.full_like(torch.zeros(2, dtype=torch.int32), 1.5).dtype == torch.int32
