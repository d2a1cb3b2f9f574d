"""A function's own analysis assumes none of its defaults (generic.own_default), as a class on its
own does not (defaults.default_symbol): an int default is a symbol of the parameter's name, its
default noted — `def pool(x, k=3)` whose only call passes 5 claimed `x.shape[2]//3` for the
line, where torch gives `30 // 5` —, and a flag or a mode decides nothing: `head(x,
flatten=True, mode="max")`, called with `False, "avg"`, claimed the pooled, flattened `[B, C]`
for what it returns, where torch gives `[B, C, 2, 2]`. The calls' contexts bind what they pass,
or the default they omit (hover's calling contexts), and the line's own shape holds for both.
Checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn.functional as F


def pool(x, k=3):
    y = F.max_pool2d(x, k)
    return y


def pool_hinted(x, k: int = 3):
    y = F.max_pool2d(x, k)
    return y


def pool_keyword(x, *, k=3):
    y = F.max_pool2d(x, k)
    return y


def run(x):
    a = pool(x, 5)
    b = pool_hinted(x, 5)
    c = pool_keyword(x, k=5)
    return a, b, c


def run_default(x):
    return pool(x)


def head(x, flatten=True, mode="max"):
    if mode == "max":
        x = F.adaptive_max_pool2d(x, 1)
    else:
        x = F.adaptive_avg_pool2d(x, 2)
    if flatten:
        x = x.flatten(1)
    out = x
    return out


def run_head(x):
    return head(x, False, "avg")
'''
LINE = PROGRAM.splitlines().index("def run(x):") + 2  # `a = pool(x, 5)`
DEFAULT = PROGRAM.splitlines().index("def run_default(x):") + 2


def _infer() -> dict:
    values = analyze_source(PROGRAM, "m.py").infer_json()["values"]
    return {(v["function"], v["name"]): v for v in values}


def _torch(fn: str, *args, **kwargs) -> tuple:
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    return tuple(ns[fn](torch.empty(1, 3, 30, 30, device="meta"), *args, **kwargs).shape)


def _evaluate(shape: list, k: int) -> tuple:
    """A claimed shape for `x` of shape (1, 3, 30, 30) and that `k`."""
    dims = (1, 3, 30, 30)
    out = []
    for d in shape:
        text = str(d)
        for i, n in enumerate(dims):
            text = text.replace(f"x.shape[{i}]", str(n))
        out.append(eval(text, {"k": k}))
    return tuple(out)


@pytest.mark.parametrize("fn", ["pool", "pool_hinted", "pool_keyword"])
def test_the_own_analysis_claims_no_default(fn):
    passed = _torch(fn, k=5)
    default = _torch(fn)
    assert passed == (1, 3, 6, 6) and default == (1, 3, 10, 10)
    shape = _infer()[(fn, "y")]["shape"]
    assert shape is None or "?" in shape or _evaluate(shape, 5) == passed, shape  # (main: [.., 10, 10] at k=5)
    assert shape is None or "?" in shape or _evaluate(shape, 3) == default, shape


def test_the_calls_contexts_keep_what_they_pass_or_omit():
    contexts = {c["context"]: c["shape"] for c in _infer()[("pool", "y")].get("contexts", [])}
    assert set(contexts) == {f"run:{LINE}", f"run_default:{DEFAULT}"}, contexts
    assert _evaluate(contexts[f"run:{LINE}"], 5) == _torch("pool", 5)
    assert _evaluate(contexts[f"run_default:{DEFAULT}"], 5) == _torch("pool")  # (k unbound there: 3 taken)


def test_a_flag_or_a_mode_decides_nothing():
    shapes = {_torch("head", False, "avg"), _torch("head"), _torch("head", True, "avg"), _torch("head", False)}
    assert shapes == {(1, 3, 2, 2), (1, 3), (1, 12), (1, 3, 1, 1)}
    got = _infer()[("head", "out")]
    contexts = {c["context"]: c["shape"] for c in got.get("contexts", [])}
    line = PROGRAM.splitlines().index("def run_head(x):") + 2
    # the line's shape is its one call's (main: the defaults' `[x.shape[0], x.shape[1]]`)
    assert got["shape"] is None or _evaluate(got["shape"], 5) == (1, 3, 2, 2), got
    assert set(contexts) <= {f"run_head:{line}", "in terms of the parameters"}, contexts
    own = contexts.get("in terms of the parameters")  # (listed where the call's rank differs)
    assert own is None or any(str(d).startswith("*") for d in own), own
    assert analyze_source(PROGRAM, "m.py").infer_json()["diagnostics"] == []
