"""A closure that calls another closure of the same `def` (issue 28; analysis/callstack.py
`repeats_running_call`).

`and_masks(and_masks(window(size), causal), padding)` builds a mask function whose outer closure
calls the inner one with the very arguments it got. The call stack took that for a recursion
that adds nothing (the same function re-entered with the same arguments) and cut it: the mask,
and every attention line after it (Mistral's sliding-window mask), had no shape. Another closure
of the same `def` reads other captured functions, so it is another call. Checked against torch
(meta tensors), directly and under nested `torch.vmap` as a mask builder maps it."""
import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import value_at

PROGRAM = '''import torch


def and_masks(*mask_functions):
    def and_mask(b, h, q, kv):
        result = q.new_ones((), dtype=torch.bool)
        for mask in mask_functions:
            result = result & mask(b, h, q, kv)
        return result
    return and_mask


def causal(b, h, q, kv):
    return kv <= q


def window(size):
    def inner(b, h, q, kv):
        return kv > q - size
    return inner


def mapped(fn):
    for d in [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None), (0, None, None, None)]:
        fn = torch.vmap(fn, in_dims=d, out_dims=0)
    return fn


def make(batch: int, q_len: int, kv_len: int, size: int):
    b, h, q, kv = torch.arange(batch), torch.arange(1), torch.arange(q_len), torch.arange(kv_len)
    fn = and_masks(and_masks(window(size), causal), causal)
    direct = fn(b[:, None, None, None], h[None, :, None, None], q[None, None, :, None], kv[None, None, None, :])
    under_vmap = mapped(fn)(b, h, q, kv)
    return direct, under_vmap
'''


def test_a_closure_calling_another_closure_of_its_def_is_followed():
    values = analyze_source(PROGRAM, "masks.py").infer_json()["values"]
    direct = value_at(values, "make", 32, "direct", required=True)["shape"]
    under_vmap = value_at(values, "make", 33, "under_vmap", required=True)["shape"]
    assert direct == [1, 1, "q_len", "kv_len"]
    assert under_vmap == ["batch", 1, "q_len", "kv_len"]
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "masks.py", "exec"), ns)
    got = ns["make"](2, 5, 6, 3)
    assert (tuple(got[0].shape), tuple(got[1].shape)) == ((1, 1, 5, 6), (2, 1, 5, 6))


def test_a_recursion_that_adds_nothing_is_still_cut():
    src = '''import torch


def spin(x):
    y = spin(x)
    return y
'''
    values = analyze_source(src, "spin.py").infer_json()["values"]
    y = value_at(values, "spin", 5, "y")
    assert y is None or y["shape"] is None
