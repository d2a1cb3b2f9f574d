"""A number that is an int on some paths and a float on others (values.NumberV, the join in
comprehensions.join_values): a bound computed as a float and rounded with `math.floor` under a
flag the analysis cannot decide, then clamped with `max`/`min` and subtracted from an `arange`
(the correction range of a rotary-embedding initialiser). Before, the join was unknown, and so was
every tensor computed with it. Whether the number is an int stays undecided: `isinstance` of it
takes both arms. Shapes are checked against torch at the sizes the program runs with."""

import torch

from .program_runs import infer, run


PROGRAM = '''import math
import torch


def ramp(lo, hi, dim):
    if lo == hi:
        hi += 0.001
    f = (torch.arange(dim, dtype=torch.float32) - lo) / (hi - lo)
    return torch.clamp(f, 0, 1)


def bounds(d: int, base: float, trunc: bool):
    low = d * math.log(base) / 2.0
    high = d * math.log(base + 1) / 2.0
    if trunc:
        low = math.floor(low)
        high = math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    r = ramp(low, high, d // 2)
    return r


def kind(d: int, base: float, trunc: bool):
    low = d * math.log(base) / 2.0
    if trunc:
        low = math.floor(low)
    if isinstance(low, int):
        out = torch.zeros(d, 2)
    else:
        out = torch.zeros(d, 3)
    return out


def mixed_widths(x, flag: bool):
    n = 2
    if flag:
        n = 0.5
    y = x * n
    return y
'''


def _result(tmp_path):
    res = infer(tmp_path, PROGRAM)
    return res, {(v["function"], v["name"]): v["shape"] for v in res["values"]}


def test_a_tensor_computed_with_an_int_or_a_float_keeps_its_shape(tmp_path):
    res, got = _result(tmp_path)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    assert got[("bounds", "r")] == ["d//2"]
    fn = run(PROGRAM)["bounds"]
    for d, trunc in ((10, True), (10, False), (7, True), (16, False)):
        assert list(fn(d, 10000.0, trunc).shape) == [d // 2]


def test_whether_it_is_an_int_stays_undecided(tmp_path):
    res = infer(tmp_path, PROGRAM)
    arms = [v["shape"] for v in res["values"] if (v["function"], v["name"]) == ("kind", "out")]
    assert arms == [["d", 2], ["d", 3]]  # both arms run: neither was decided away
    fn = run(PROGRAM)["kind"]
    assert list(fn(10, 10000.0, True).shape) == [10, 2]
    assert list(fn(10, 10000.0, False).shape) == [10, 3]


def test_a_tensor_times_an_int_or_a_float_keeps_its_shape(tmp_path):
    res, got = _result(tmp_path)
    assert got[("mixed_widths", "y")] == ["*x"]
    fn = run(PROGRAM)["mixed_widths"]
    for flag in (True, False):
        assert list(fn(torch.randn(3, 5), flag).shape) == [3, 5]
