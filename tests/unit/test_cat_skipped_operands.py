"""`torch.cat` skips a 1-D tensor of size 0 whatever the other operands' rank (ops/empty_operands.py):
an operand of unknown rank may be that tensor, so it is not given the others' rank and the joined
axis is not claimed as a sum with its size; the other axes are the kept operands' either way. An
operand with two axes read is not that tensor, nor is one with an axis the facts say is not 0
(a size read off a tensor is at least 1); those join as before.

Every shape claimed is checked against torch on the meta device."""
import torch

from shapehint.analysis.api import analyze_source

from .program_runs import run

PROGRAM = """import torch


def chosen(x: torch.Tensor, flag: bool):
    k = x.view(2, 3, 5, 4)
    p = torch.zeros(0) if flag else k
    out = torch.cat([p, k], -2)
    return out


def given(x: torch.Tensor, p: torch.Tensor):
    k = x.view(2, 3, 5, 4)
    out = torch.cat([p, k], -2)
    return out


def read(x: torch.Tensor, p: torch.Tensor):
    k = x.view(2, 3, 5, 4)
    n = p.shape[2]
    out = torch.cat([p, k], -2)
    return out


def last(x: torch.Tensor, p: torch.Tensor):
    k = x.view(2, 3, 5, 4)
    w = p.shape[-1]
    out = torch.cat([p, k], -2)
    return out


def guarded(x: torch.Tensor, p: torch.Tensor):
    k = x.view(2, 3, 5, 4)
    assert k.shape[2:] == p.shape[2:]
    out = torch.cat([p, k], 1)
    return out


def beyond(x: torch.Tensor, p: torch.Tensor):
    k = x.view(2, 3, 5, 4)
    assert k.shape[4:] == p.shape[4:]
    out = torch.cat([p, k], 1)
    return out


def first(x: torch.Tensor, p: torch.Tensor):
    k = x.view(2, 3, 5, 4)
    out = torch.cat([k, p], 0)
    return out
"""


def _inferred(function):
    r = analyze_source(PROGRAM, "m.py")
    j = r.infer_json()
    assert not j["diagnostics"]
    return {v["name"]: v["shape"] for v in j["values"] if v["function"] == function}


def _torch(function, *args):
    with torch.device("meta"):
        return list(run(PROGRAM)[function](torch.zeros(120), *args).shape)


def _agrees(got, want) -> bool:
    return got == ["*?"] or len(got) == len(want) and all(g == "?" or g == w for g, w in zip(got, want))


def test_a_choice_of_the_empty_tensor_keeps_its_unknown_rank_and_the_axis_is_not_summed():
    wants = [_torch("chosen", flag) for flag in (True, False)]
    assert wants == [[2, 3, 5, 4], [2, 3, 10, 4]]
    got = _inferred("chosen")
    assert got.get("p") in (None, ["*?"])  # never rank 4: it is 1-D when the flag is set
    assert got["out"] == [2, 3, "?", 4] and all(_agrees(got["out"], w) for w in wants)


def _empty_or_full(function, full):
    """Torch's result for `p` the empty tensor and for `p` of shape `full`."""
    with torch.device("meta"):
        return [_torch(function, torch.zeros(0)), _torch(function, torch.zeros(*full))]


def test_a_parameter_of_unknown_rank_may_be_the_empty_tensor():
    wants = _empty_or_full("given", (2, 3, 7, 4))
    assert wants == [[2, 3, 5, 4], [2, 3, 12, 4]]
    got = _inferred("given")["out"]
    assert got == [2, 3, "?", 4] and all(_agrees(got, w) for w in wants)  # not `p.shape[2] + 5`


def test_an_operand_with_an_axis_read_past_the_first_is_not_the_empty_tensor():
    with torch.device("meta"):
        full = torch.zeros(2, 3, 7, 4)
    assert _torch("read", full) == [2, 3, 12, 4]
    got = _inferred("read")["out"]
    assert got[:2] == [2, 3] and got[3] == 4 and "p.shape[2]" in str(got[2])  # the sum with p's axis


def test_one_axis_read_says_the_operand_is_not_empty():
    # sizes read off a tensor are taken to be at least 1 (the solver's default bound), so
    # `p.shape[-1]` read says p is no empty tensor: it has the others' rank and joins the sum
    with torch.device("meta"):
        assert _torch("last", torch.zeros(2, 3, 7, 4)) == [2, 3, 12, 4]
    got = _inferred("last")["out"]
    assert got[:2] == [2, 3] and got[3] == 4 and "p.shape[2]" in str(got[2])


def test_equal_shape_tails_teach_the_rank():
    # `k.shape[2:] == p.shape[2:]` with k 4-D: p has two axes past its second, so rank 4 (the
    # empty tensor fails the assert); an empty tail (`[4:]`) says only "at most 4"
    with torch.device("meta"):
        assert _torch("guarded", torch.zeros(2, 6, 5, 4)) == [2, 9, 5, 4]
        for p in (torch.zeros(0), torch.zeros(2, 6, 5, 4)):
            assert _torch("beyond", p) in ([2, 3, 5, 4], [2, 9, 5, 4])
    got = _inferred("guarded")["out"]
    assert got[0] == 2 and got[2:] == [5, 4] and "p.shape[1]" in str(got[1])
    assert _inferred("beyond")["out"] == [2, "?", 5, 4]


def test_the_other_axes_hold_whichever_operand_comes_first():
    wants = _empty_or_full("first", (4, 3, 5, 4))
    assert wants == [[2, 3, 5, 4], [6, 3, 5, 4]]
    got = _inferred("first")["out"]
    assert got == ["?", 3, 5, 4] and all(_agrees(got, w) for w in wants)
