"""A test of a tensor's rank that the analysis cannot decide (`if mask.dim() == 2:`, `if m is not
None and len(m.shape) == 4:`, `if x.ndim != 3: ... else: ...`) tells the arm where it holds the
rank it implies: that arm's operations on the tensor know its axes (ranks.learn_arm_ranks, on the
arm's own copy of the tensor, Ranks.own_arm_copies). The other arm and the path past the
`if` learn nothing from it. Every shape claimed is checked against torch on the meta device."""
import importlib.util

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''
import torch


def widen(am: torch.Tensor, x: torch.Tensor):
    assert x.ndim == 4
    if am.dim() == 2:
        e = am[:, None, None, :]
    elif am.dim() == 3:
        e = am[:, None, :, :]
    else:
        raise ValueError("a 2-D or 3-D mask")
    y = x + e
    return e, y


def maybe(m, x: torch.Tensor):
    assert x.ndim == 2
    if m is not None and len(m.shape) == 2:
        s = m[:, None, None, :]
        return s
    return x


def other_arm(x: torch.Tensor):
    if x.ndim != 3:
        y = x.flatten()
    else:
        y = x.transpose(1, 2)
    return y


def untaught(x: torch.Tensor):
    if x.dim() == 4:
        a = x[:, 0]
    else:
        b = x[:, 0]
    c = x.sum(0)
    return c
'''


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    path = tmp_path_factory.mktemp("arm_ranks") / "arm_ranks.py"
    path.write_text(SRC)
    values = {(v["function"], v["name"], v["line"]): v["shape"]
              for v in analyze_source(SRC, str(path)).infer_json()["values"]}
    spec = importlib.util.spec_from_file_location("arm_ranks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return values, mod


def _line(text: str) -> int:
    return next(i for i, ln in enumerate(SRC.splitlines(), 1) if ln.strip() == text)


def _evaluated(shape, **tensors):
    return [eval(d, {"max": max}, tensors) if isinstance(d, str) else d for d in shape]


@pytest.mark.parametrize("am_shape,line", [((2, 7), "e = am[:, None, None, :]"),
                                           ((2, 5, 7), "e = am[:, None, :, :]"),
                                           ((1, 7), "e = am[:, None, None, :]")])
def test_each_arm_knows_the_rank_it_tested(analysed, am_shape, line):
    import torch
    values, mod = analysed
    claimed = values.get(("widen", "e", _line(line)))
    assert claimed is not None and all(not str(d).startswith("*") for d in claimed), claimed
    am, x = torch.empty(am_shape, device="meta"), torch.empty(2, 3, 5, 7, device="meta")
    e, y = mod.widen(am, x)
    assert _evaluated(claimed, am=am, x=x) == list(e.shape)
    joined = values[("widen", "y", _line("y = x + e"))]
    assert len(joined) == 4  # both arms' ranks agree past the `if`
    for got, want in zip(_evaluated(joined[:2], am=am, x=x), y.shape[:2]):
        assert got == want


def test_a_test_inside_an_and_teaches_its_arm(analysed):
    import torch
    values, mod = analysed
    claimed = values[("maybe", "s", _line("s = m[:, None, None, :]"))]
    assert len(claimed) == 4 and not any(str(d).startswith("*") for d in claimed)
    for shape in [(2, 9), (3, 1)]:
        m = torch.empty(shape, device="meta")
        assert _evaluated(claimed, m=m) == list(mod.maybe(m, torch.empty(4, 4, device="meta")).shape)


def test_the_unequal_tests_other_arm_knows_the_rank(analysed):
    import torch
    values, mod = analysed
    claimed = values[("other_arm", "y", _line("y = x.transpose(1, 2)"))]
    x = torch.empty(2, 3, 5, device="meta")
    assert _evaluated(claimed, x=x) == list(mod.other_arm(x).shape)


def test_nothing_is_learned_for_the_other_arm_or_after_the_if(analysed):
    values, _ = analysed
    assert values[("untaught", "a", _line("a = x[:, 0]"))] == ["x.shape[0]", "x.shape[2]", "x.shape[3]"]
    other = values[("untaught", "b", _line("b = x[:, 0]"))]
    assert other is None or any(str(d).startswith("*") for d in other), other
    after = values[("untaught", "c", _line("c = x.sum(0)"))]
    assert after is None or any(str(d).startswith("*") for d in after), after
