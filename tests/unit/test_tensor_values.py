"""Small tensors whose elements are computed from constants (analysis/tensor_values.py). Every
program here is also run by torch on CPU (values need real tensors, not meta ones): a size the
analysis claims must be torch's, and a value within a few ulps of a rounding boundary must be
left unknown ('?'), never guessed."""
import math
import random

import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = "import math\nimport torch\n\n"


def _widths(name, depth, w0, wa, wm, q=8):
    # a network's widths: linear in log space, quantised (the formula of RegNet-like models)
    return f'''
def {name}():
    cont = torch.arange({depth}) * {wa!r} + {w0}
    caps = torch.round(torch.log(cont / {w0}) / math.log({wm!r}))
    ws = (torch.round(torch.divide({w0} * torch.pow({wm!r}, caps), {q})) * {q}).int().tolist()
    z = torch.zeros(ws, device="meta")
    return z
'''


def _float32_widths(name, depth, w0, wa, wm, q=8):
    return f'''
def {name}():
    cont = torch.arange({depth}, dtype=torch.float32) * {wa!r} + {w0}
    exps = torch.round(torch.log(cont / {w0}) / math.log({wm!r}))
    ws = torch.round(({w0} * torch.pow({wm!r}, exps)) / {q}) * {q}
    widths, depths = torch.unique(torch.tensor(ws.int().tolist()), return_counts=True)
    top = int(exps.max().item()) + 1
    z = torch.zeros(widths.tolist() + depths.tolist() + [top, len(set(ws.int().tolist()))], device="meta")
    return z
'''


def _check(src, names):
    """{name: (claimed, torch's)} after asserting that every claimed size is torch's."""
    got = {v["function"]: v["shape"] for v in analyze_source(src, "values.py").infer_json()["values"]
           if v["name"] == "z"}
    ns = {"_sizes": lambda sizes, device=None: torch.Size(sizes)}  # (sizes too large to allocate)
    exec(compile(src.replace("z = torch.zeros(", "z = _sizes("), "values.py", "exec"), ns)
    out = {}
    for n in names:
        want = list(ns[n]())
        claim = got.get(n)
        if claim is not None and claim != ["*?"]:
            assert len(claim) == len(want), (n, claim, want)
            for c, w in zip(claim, want):
                assert c == "?" or c == w, (n, claim, want)
        out[n] = (claim, want)
    return out


def test_widths_of_the_regnet_like_formula_are_torchs():
    src = HEAD + _widths("f400", 16, 48, 27.89, 2.09) + _widths("f800", 14, 56, 38.84, 2.4)
    out = _check(src, ["f400", "f800"])
    assert out["f400"][0] == [48, 104, 104, 104, 208, 208, 208, 208, 208, 208, 440, 440, 440, 440, 440, 440]
    assert out["f800"][0] == out["f800"][1]


def test_random_settings_never_give_a_wrong_width():
    rng = random.Random(27)
    cases = []
    for i in range(40):
        cases.append((f"r{i}", rng.randint(3, 24), 8 * rng.randint(1, 24), round(rng.uniform(5, 80), 2),
                      round(rng.uniform(1.3, 3.2), 2)))
    src = HEAD + "".join(_widths(*c) for c in cases[:20]) + "".join(_float32_widths(*c) for c in cases[20:])
    out = _check(src, [c[0] for c in cases])
    known = sum(1 for claim, want in out.values() if claim == want)
    assert known >= 30  # most are decided (a boundary within a few ulps is not)


BOUNDARY = HEAD + '''
def at_half():
    # log of exp(2.5) is 2.5 within an ulp or two either way: round() may give 2 or 3
    t = torch.round(torch.log(torch.tensor([math.exp(2.5), 1.0])))
    z = torch.zeros(t.int().tolist(), device="meta")
    return z


def exact_half():
    # 5 / 2 is exactly 2.5 in float32 (a division by a power of two): rounds half to even
    t = torch.round(torch.arange(6) / 2)
    z = torch.zeros(t.int().tolist(), device="meta")
    return z


def trunc_close():
    # 0.1 * 30 in float32 is 3.0000001 or 2.9999998 by the method: int() truncates either way
    t = (torch.arange(1, 4) * 0.1 * 10).int()
    z = torch.zeros(t.tolist(), device="meta")
    return z


def int_math():
    t = torch.arange(2, 7) * 3 - 1
    d = torch.diff(torch.tensor([0, 2, 3, 7]))
    z = torch.zeros(t.tolist() + d.tolist(), device="meta")
    return z
'''


def test_a_rounding_within_ulps_of_a_boundary_is_unknown():
    out = _check(BOUNDARY, ["at_half", "exact_half", "trunc_close", "int_math"])
    assert out["at_half"][0] in (None, ["?", "?"])
    assert out["exact_half"][0] == [0, 0, 1, 2, 2, 2]
    assert out["int_math"][0] == [5, 8, 11, 14, 17, 2, 1, 4]


PROMOTION = HEAD + '''
def int_by_float():
    t = (torch.arange(4) * 2.5).int()     # int64 * float -> float32
    z = torch.zeros(t.tolist(), device="meta")
    return z


def int_by_int():
    t = torch.arange(4) * 3 + 2          # stays int64
    z = torch.zeros(t.tolist(), device="meta")
    return z


def true_division():
    t = (torch.arange(1, 5) / 3 * 3).round().int()  # float32, 1/3 inexact
    z = torch.zeros(t.tolist(), device="meta")
    return z


def float64_values():
    t = (torch.arange(3, dtype=torch.float64) * 0.1 * 10 + 0.5).round().long()
    z = torch.zeros(t.tolist(), device="meta")
    return z
'''


def test_dtype_promotion_follows_torch():
    out = _check(PROMOTION, ["int_by_float", "int_by_int", "true_division", "float64_values"])
    assert out["int_by_float"][0] == [0, 2, 5, 7]
    assert out["int_by_int"][0] == [2, 5, 8, 11]
    assert out["true_division"][0] in (out["true_division"][1], ["?"] * 4)


WRITES = HEAD + '''
def written_in_place():
    t = torch.arange(3) + 1
    t.mul_(2)
    z = torch.zeros(t.tolist(), device="meta")
    return z


def written_through_index():
    t = torch.arange(3) + 1
    t[0] = 5
    z = torch.zeros(t.tolist(), device="meta")
    return z


def _scale(t):
    t.mul_(2)


def written_by_a_callee():
    # the second call is not answered from the first (the call memo): it writes b too
    a = torch.arange(3) + 1
    _scale(a)
    b = torch.arange(3) + 1
    _scale(b)
    z = torch.zeros(b.tolist(), device="meta")
    return z


def read_only():
    t = torch.arange(3) + 1
    n = t.size(0)
    z = torch.zeros(t.tolist() + [n], device="meta")
    return z
'''


def test_a_tensor_written_in_place_loses_its_values():
    out = _check(WRITES, ["written_in_place", "written_through_index", "written_by_a_callee", "read_only"])
    assert out["written_by_a_callee"][0] != [1, 2, 3]
    assert out["written_in_place"][0] != [1, 2, 3]
    assert out["written_through_index"][0] != [1, 2, 3]
    assert out["read_only"][0] == [1, 2, 3, 3]


def test_unique_counts_and_max():
    src = HEAD + _float32_widths("g", 13, 24, 36.44, 2.49)
    out = _check(src, ["g"])
    assert out["g"][0] == out["g"][1] == [24, 56, 152, 368, 1, 1, 4, 7, 4, 4]


def test_the_float32_interval_contains_torchs_value():
    from shapehint.analysis.tensor_values import _monotone, _binary, _f32, _ARITH
    rng = random.Random(5)
    for _ in range(300):
        a, b = rng.uniform(0.01, 1e4), rng.uniform(0.01, 1e4)
        ta, tb = torch.tensor([a]), torch.tensor([b])
        fa, fb = _f32(a), _f32(b)
        for op, want in (("mul", ta * tb), ("div", ta / tb), ("add", ta + tb), ("sub", ta - tb)):
            lo, hi = _binary(_ARITH[op], (fa, fa), (fb, fb), "float32", op == "div")
            assert lo <= want.item() <= hi
        lo, hi = _monotone(math.log, (fa, fa), "float32")
        assert lo <= torch.log(ta).item() <= hi
        # a Python float scalar: torch may take it in double or in float32
        lo, hi = _binary(_ARITH["mul"], (fa, fa), (min(b, fb), max(b, fb)), "float32")
        assert lo <= (ta * b).item() <= hi


MEMO = WRITES + '''

def summed():
    return written_by_a_callee() + torch.zeros(2, 4, 6, device="meta")
'''


def test_a_callee_writing_values_is_not_answered_from_the_call_memo():
    # `shapehint check` keeps no records, so the call memo is on: the second `_scale` must run
    # (dropping b's elements) rather than be answered by the first, or b would keep [1, 2, 3]
    # and the sum would be a false broadcast error where torch gives (2, 4, 6)
    ns = {}
    exec(compile(MEMO, "memo.py", "exec"), ns)
    assert tuple(ns["summed"]().shape) == (2, 4, 6)
    result = analyze_source(MEMO, "memo.py", records=False)
    assert [d.code for d in result.diagnostics] == []
