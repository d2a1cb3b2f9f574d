"""What is not understood is unknown — never the identity, never an empty list (issue 25,
items 3 and 7): parts a constructor builds only for given arguments, attributes written in the
arms of an undecided `if`."""
from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "parts.py").diagnostics if d.severity == "error"]


def _shapes(text, name):
    return [None if v.shape is None else str(v.shape) for v in analyze_source(text, "parts.py").values
            if v.name == name]


OPTIONAL_PARTS = '''import torch
import torch.nn as nn
from typing import Optional


class Fuse(nn.Module):
    def __init__(self, dim: int, a_dim: Optional[int] = None, b_dim: Optional[int] = None):
        super().__init__()
        self.query = nn.Linear(dim, dim)
        if a_dim is not None:
            self.key_a = nn.Linear(a_dim, dim)
        else:
            self.key_a = None
        self.key_b = nn.Linear(b_dim, dim) if b_dim is not None else None

    def forward(self, q, a, b):
        q = self.query(q)
        if self.key_a is not None:
            ka = self.key_a(a)
        else:
            ka = None
        if self.key_b is not None:
            kb = self.key_b(b)
        else:
            kb = None
        keys = [k for k in [ka, kb] if k is not None]
        keys = torch.cat(keys, dim=1)
        return q @ keys.transpose(1, 2)
'''


def test_parts_built_only_for_given_arguments_are_not_taken_as_absent():
    # the generic instance (built with the None defaults) has no key layers; callers that pass
    # a_dim or b_dim do: the list of keys is not known to be empty
    assert _errors(OPTIONAL_PARTS) == []


def test_a_list_filtered_to_nothing_for_every_construction_still_fails():
    # no constructor call builds a key layer: the list is empty for every input
    text = OPTIONAL_PARTS.replace("nn.Linear(a_dim, dim)", "None").replace(
        "nn.Linear(b_dim, dim) if b_dim is not None else None", "None")
    assert _errors(text) == [(27, "SH107")]


def test_an_argument_stored_as_it_came_is_any_value_a_construction_passes():
    # `self.layer_idx = layer_idx`: the default None is one possible value (issue 24, defaults are
    # not facts; tests/unit/test_defaults_not_facts.py): a class analysed on its own decides
    # neither test on it, so neither assertion is an error or a warning
    text = '''import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, layer_idx=None):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, x):
        assert self.layer_idx is None
        return x
'''
    assert _errors(text) == []
    assert _errors(text.replace("is None", "is not None")) == []


UNDECIDED_ATTR = '''import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim, proj):
        super().__init__()
        if proj > 4:
            self.out = nn.Linear(dim, proj)
        else:
            self.out = None

    def forward(self, x):
        y = self.out(x)
        return y
'''


def test_an_attribute_written_in_both_arms_of_an_undecided_if_is_not_the_last_arms():
    # `proj` is a symbol: the instance holds a Linear or None; the None arm, run last, must not
    # win (calling it is no error: some constructions build the Linear)
    assert _errors(UNDECIDED_ATTR) == []
    # a Linear(dim, proj) or the identity: y is not x's shape (the identity arm used to win)
    text = UNDECIDED_ATTR.replace("self.out = None", "self.out = nn.Identity()").replace(
        "        y = self.out(x)", "        x = x.reshape(2, 3, 8)\n        y = self.out(x)")
    assert all(s != "[2, 3, 8]" for s in _shapes(text, "y"))
    assert "[2, 3, 8]" in _shapes(text, "x")


def test_an_attribute_written_in_one_arm_only_joins_with_what_it_was():
    text = UNDECIDED_ATTR.replace("            self.out = None\n", "            pass\n").replace(
        "        if proj > 4:", "        self.out = nn.Linear(dim, 4)\n        if proj > 4:")
    # a Linear(dim, proj) or a Linear(dim, 4): the last axis is neither known to be proj (the
    # arm's write used to win) nor 4
    shapes = _shapes(text, "y")
    assert all(s is None or not s.endswith((", 4]", ", proj]")) for s in shapes)


def test_an_attribute_written_in_an_arm_that_raises_is_the_other_arms():
    text = UNDECIDED_ATTR.replace("            self.out = None\n", "            self.out = None\n            raise ValueError(proj)\n")
    assert _errors(text) == []
    shapes = _shapes(text, "y")
    assert shapes and shapes[0].endswith(", proj]")


FILLED_SEQUENTIAL = '''import torch
import torch.nn as nn


class Block(nn.Sequential):
    def __init__(self, cin, cout, n):
        super().__init__()
        for i in range(n):
            self.add_module(f"conv{i}", nn.Conv2d(cin if i == 0 else cout, cout, 3, padding=1))
            self.add_module(f"act{i}", nn.ReLU())


def main():
    block = Block(3, 32, 2)
    out = block(torch.randn(2, 3, 64, 48))
    return out
'''


def test_a_sequential_filled_with_add_module_in_a_loop_runs_its_layers():
    # the f-string names are known in the unrolled loop: conv0, act0, conv1, act1, in order
    assert set(_shapes(FILLED_SEQUENTIAL, "out")) == {"[2, 32, 64, 48]"}


def test_a_sequential_filled_under_names_not_known_is_unknown_not_the_identity():
    # the names come from somewhere the analysis does not follow: which layers the block holds
    # is not understood, so its output is unknown — never the input's shape (the identity)
    text = FILLED_SEQUENTIAL.replace('f"conv{i}"', 'names[2 * i]').replace('f"act{i}"', 'names[2 * i + 1]').replace(
        "        super().__init__()\n", "        super().__init__()\n        names = make_names(n)\n")
    assert _shapes(text, "out") in ([], [None])


RANK_BRANCH = '''import torch
import torch.nn as nn


class Norm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln = nn.LayerNorm(c)

    def forward(self, x):
        if x.dim() == 4:
            b, c, h, w = x.shape
            x = self.ln(x.permute(0, 2, 3, 1))
            y = x.permute(0, 3, 1, 2)
        else:
            y = self.ln(x)
        return y
'''


def _generic(text, line, name):
    return [str(v.shape) for v in analyze_source(text, "parts.py").values
            if v.span.line == line and v.name == name and v.is_target]


def test_a_rank_learned_in_one_arm_of_a_rank_test_is_not_the_other_arms():
    # `b, c, h, w = x.shape` speaks for 4-D inputs only: the else arm is for the others, and
    # must not be shown with the 4-D shape
    assert _generic(RANK_BRANCH, 14, "y") == ["[b, c, h, w]"]
    other = _generic(RANK_BRANCH, 16, "y")
    assert other and all("b, c, h, w" not in s for s in other)


def test_a_tensor_compared_with_what_is_not_understood_is_no_python_bool():
    # `length.max().item()` is not followed in the generic analysis, so the left side is unknown:
    # the comparison is an elementwise result of unknown shape, and `torch.as_tensor` of it is not
    # a 0-D tensor (whose `unsqueeze(1)` would be out of range)
    text = '''import torch


def to_mask(length, max_len=None):
    if max_len is None:
        max_len = length.max().long().item()
    mask = torch.arange(max_len).expand(len(length), max_len) < length.unsqueeze(1)
    m = torch.as_tensor(mask, dtype=torch.float32)
    return m.unsqueeze(1)
'''
    assert _errors(text) == []
    assert all(s != "[]" for s in _generic(text, 8, "m"))


def test_a_slice_of_a_list_of_unknown_length_is_a_list_not_an_item():
    # `list(range(n - k))[::-1]` is a list: `torch.tensor` of it is 1-D, never the 0-D tensor of
    # one item (whose `[None, :]` would have too many indices)
    text = '''import torch


def f(ids, k: int):
    n = ids.size(1)
    t = torch.tensor(list(range(n - k))[::-1])
    return t[None, :]
'''
    assert _errors(text) == []
    assert all(s != "[]" for s in _generic(text, 7, "t"))


FILLED_BY_KEY = '''import torch


def pad(inputs: list[dict]):
    batched = {"ids": [], "mask": []}
    for entry in inputs:
        for key, t in entry.items():
            batched[key].append(t)
    for key in ["ids", "mask"]:
        batched[key] = torch.cat(batched[key], dim=0)
    return batched
'''


def test_lists_filled_through_a_key_not_known_are_not_judged_empty():
    # `batched[key]` may be any item, and the loop fills it: no list is known to stay empty
    assert _errors(FILLED_BY_KEY) == []


def test_lists_no_code_fills_are_still_empty():
    text = FILLED_BY_KEY.replace("            batched[key].append(t)\n", "            print(key, t)\n")
    assert _errors(text) == [(10, "SH107")]


def test_an_in_place_op_with_an_operand_not_understood_keeps_the_tensors_shape():
    # the comparison's left side (an arange of an unknown dtype's device...) is not followed, so
    # its result is unknown; `*=` works in place: the mask keeps its shape (or the line raises)
    text = '''import torch


def mask(s: int, t: int, dtype, pos):
    m = torch.full((s, t), fill_value=torch.finfo(dtype).min, dtype=dtype, device=pos.device)
    m *= torch.arange(t, device=pos.device) > pos.reshape(-1, 1)
    return m
'''
    assert _generic(text, 6, "m") == ["[s, t]"]
