"""An assertion on a string default callers may replace (values.DefaultStrV) is no error of the
function on its own (executor._on_defaults): a pooling helper that ends its known modes with
`else: assert not pool_type` (its check on an unknown mode, not a claim about shapes) was
reported SH108 "fails for every admissible input" while every call passes a known mode (the
function's own analysis decides nothing on its string defaults: generic.own_default). A call in
view passing an unknown mode still gets the error, and an assertion on shapes still does.
Shapes checked against torch on meta."""
import pytest

from shapehint.analysis.api import analyze_source

POOL = '''import torch


def pool(x, pool_type="token", n=1):
    if not pool_type:
        return x
    if pool_type == "token":
        x = x[:, 0]
    else:
        x = x[:, n:]
        if pool_type == "avg":
            x = x.mean(dim=1)
        elif pool_type in ("max", "amax"):
            x = x.amax(dim=1)
        else:
            assert not pool_type, f"unknown pool type {pool_type}"
    out = x
    return out


def run():
    return pool(torch.zeros(2, 5, 8), "avg")
'''

DEFAULT_ARM = '''import torch


def head(x, mode="flat"):
    if mode != "flat":
        y = x
    else:
        y = x.reshape(x.shape[0], -1)
        assert y.shape[1] == -1
    return y
'''


def _codes(src: str) -> list:
    return [d["code"] for d in analyze_source(src, "m.py").infer_json()["diagnostics"]]


def test_the_arm_only_other_modes_take_reports_nothing():
    assert _codes(POOL) == []


def test_the_call_keeps_its_shape():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(POOL, "m.py", "exec"), ns)
    with torch.device("meta"):
        want = tuple(ns["run"]().shape)
    values = analyze_source(POOL, "m.py").infer_json()["values"]
    got = next(v for v in values if v["function"] == "pool" and v["name"] == "out")
    line = POOL.splitlines().index("def run():") + 2
    ctx = {c["context"]: c["shape"] for c in got.get("contexts", [])}
    shape = ctx.get(f"run:{line}")
    assert want == (2, 8) and shape is not None and tuple(shape) == want, got


def test_a_call_passing_an_unknown_mode_still_gets_the_error():
    src = POOL.replace('"avg")', '"bogus")')
    assert '"bogus")' in src and _codes(src) == ["SH108"]


def test_an_error_in_the_default_s_arm_still_is_reported():
    assert "SH108" in _codes(DEFAULT_ARM)
