"""False errors found by `shapehint check` over working model code (issue 25): each program here
runs under PyTorch, so no error may be reported; beside each, the real error that must still be."""
import pytest

from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "fe.py").diagnostics if d.severity == "error"]


# a mask built from tensors the analysis lost (the caller's input is not known to be a tensor):
# `a < b.unsqueeze(1)` over two values not understood may be an elementwise tensor, so
# `torch.as_tensor` of it is not a 0-D tensor
MASK = '''import torch


def to_mask(length, max_len, dtype=None):
    mask = torch.arange(max_len).expand(len(length), max_len) < length.unsqueeze(1)
    mask = torch.as_tensor(mask, dtype=dtype)
    return mask


def pool(x):
    seq = x.shape[-1]
    lengths = torch.ones(x.shape[0])
    mask = to_mask(lengths * seq, seq, dtype=x.dtype)
    return mask.unsqueeze(1)


def caller(y):
    y = y.transpose(1, 2)
    return pool(y)
'''


def test_a_comparison_of_values_not_understood_may_be_a_tensor():
    assert _errors(MASK) == []


def test_a_comparison_of_known_ints_is_still_a_bool_and_as_tensor_of_it_0d():
    text = ("import torch\n\n\ndef f(x):\n    b = x.shape[0] < 3\n    t = torch.as_tensor(b)\n"
            "    return t.unsqueeze(1)\n")
    assert _errors(text) == [(7, "SH105")]


def test_a_chained_comparison_with_an_unknown_keeps_what_it_implies():
    # `0 < n <= x.shape[0]` is a bool whatever n is: the assert still teaches x.shape[0] >= 2
    text = ("import torch\n\n\ndef f(x, n):\n    assert 1 < x.shape[0] <= n.limit\n"
            "    assert x.shape[0] == 1\n    return x\n")
    assert _errors(text) == [(6, "SH108")]


# BatchNorm1d takes (N, C) and (N, C, L): on an input of unknown rank it must not pick one
# (picking (N, C) made the later `permute(0, 2, 1)` an error)
NORM = '''import torch
from torch import nn


class Depthwise(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv = nn.Conv1d(c, c, 3, padding=1, groups=c)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.conv(h)


class ConvModule(nn.Module):
    def __init__(self, c: int = 16):
        super().__init__()
        self.dw = Depthwise(c)
        self.bn = nn.BatchNorm1d(c)
        self.down = nn.Conv1d(c, 8, 1)

    def forward(self, h):
        h = self.dw(h.permute(0, 2, 1))
        h = self.bn(h)
        return self.down(h).permute(0, 2, 1)
'''


def test_a_norm_layer_accepting_several_ranks_leaves_an_unknown_rank_open():
    assert _errors(NORM) == []


def test_a_norm_layer_still_checks_channels_and_known_ranks():
    text = ("import torch\nfrom torch import nn\n\nbn = nn.BatchNorm1d(16)\n\n\n"
            "def f(h: torch.Tensor):\n    a = bn(h)\n    return a.permute(0, 2, 1)\n\n\n"
            "def g(h: torch.Tensor):\n    h = h.unsqueeze(0)\n    return bn(h)\n\n\n"
            "def k():\n    return bn(torch.zeros(2, 8, 5))\n\n\n"
            "def m():\n    return bn(torch.zeros(2, 16, 5, 5))\n")
    errors = _errors(text)
    assert (18, "SH101") in errors and (22, "SH102") in errors and len(errors) == 2


# the axes named before a variadic segment and after it may be the same axes: `x.shape[2]` read,
# then x met a Linear(16, ...), and x is [B, T, 16]
SHARED = '''import torch
from torch import nn

lin = nn.Linear(16, 8)


def f(x):
    t = x.shape[2]
    y = lin(x)
    a, b, c = x.shape
    return y


def g(x):
    t = x.shape[2]
    y = lin(x)
    a, b = x.shape
    return y
'''


def test_unpacking_as_many_names_as_the_shared_axes_allow_is_no_error():
    # three names for x.shape are fine; two are too few whatever the sharing (x has >= 3 axes)
    assert _errors(SHARED) == [(17, "SH111")]


# clap's fusion block: `len(longer) > 0` on a `longer=None` default — no run gets past `len(None)`,
# so the `None` the generic analysis took (indexing with it adds an axis) is no fact there
LONGER = '''import torch
from torch import nn


class Fusion(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv = nn.Conv2d(1, c, 3, padding=1)

    def forward(self, x, longer=None):
        b, c, h, w = x.shape
        out = self.conv(x[:, 0:1])
        if len(longer) > 0:
            local = x[longer, 1:, :, :]
            n, m, h, w = local.shape
            out = out + self.conv(local.reshape(n * m, 1, h, w)).sum()
        return out
'''


def test_what_follows_len_of_a_none_default_is_no_fact():
    assert _errors(LONGER) == []


def test_a_none_index_still_adds_an_axis_where_nothing_rules_it_out():
    text = LONGER.replace("if len(longer) > 0:", "if longer is None:")
    assert _errors(text) == [(15, "SH111")]


# a part built with the model's optional `retriever=None` and a helper calling the model without
# the optional context: the assertion fails only for models built without a retriever (torch runs
# `Outer(retriever=nn.Linear(8, 8)).generate(torch.zeros(2, 8))`), so it is no error
RETRIEVER = '''from typing import Optional
import torch
import torch.nn as nn


class Inner(nn.Module):
    def __init__(self, retriever=None):
        super().__init__()
        self.retriever = retriever
        self.enc = nn.Linear(8, 8)

    def forward(self, input_ids: torch.Tensor, context: Optional[torch.Tensor] = None):
        if self.retriever is not None and context is None:
            context = self.retriever(input_ids)
        else:
            assert context is not None, "pass a context or build with a retriever"
        return self.enc(context)


class Outer(nn.Module):
    def __init__(self, retriever=None):
        super().__init__()
        self.inner = Inner(retriever=retriever)

    def forward(self, input_ids: torch.Tensor, context: Optional[torch.Tensor] = None):
        return self.inner(input_ids, context=context)

    def generate(self, input_ids: torch.Tensor):
        return self(input_ids)
'''


def test_a_constructor_none_default_passed_to_a_part_is_no_fact():
    assert _errors(RETRIEVER) == []


def test_an_assertion_failing_on_a_path_every_input_takes_is_still_an_error():
    # the same shape of code with nothing optional deciding the path: still SH108
    text = RETRIEVER.replace("    def generate(self, input_ids: torch.Tensor):\n        return self(input_ids)\n",
                             "    def generate(self, input_ids: torch.Tensor):\n"
                             "        assert input_ids.shape[0] == 0\n        return self(input_ids)\n")
    assert (29, "SH108") in _errors(text)


# a ratio annotated `float` is no size: `int(patch * (1 - ratio))` may be positive (torch runs
# `split(torch.zeros(1, 2, 8, 8), 4, 0.5)`), so the unfold's stride is not proven <= 0
RATIO = '''import torch
import torch.nn.functional as F


def split(x: torch.Tensor, patch: int, ratio: float) -> torch.Tensor:
    b, c, h, w = x.shape
    if h == w == patch:
        return x
    stride = int(patch * (1 - ratio))
    return F.unfold(x, kernel_size=(patch, patch), stride=(stride, stride))
'''


def test_a_float_parameter_is_no_size():
    assert _errors(RATIO) == []


# a permutation built from lists at run time (`first + [zero + i for i in inds]`) that the
# analysis cannot read is no one-axis permutation: torch gives [2, 1, 5, 1] for M()(zeros(2, 5))
PERMUTED = '''import torch


def permute_final_dims(tensor: torch.Tensor, inds: list[int]):
    zero_index = -1 * len(inds)
    first_inds = list(range(len(tensor.shape[:zero_index])))
    return tensor.permute(first_inds + [zero_index + i for i in inds])


class M(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        y = x.unsqueeze(-1).unsqueeze(-1)
        return permute_final_dims(y, (2, 0, 1))
'''


def test_a_permutation_the_analysis_cannot_read_teaches_no_rank():
    assert _errors(PERMUTED) == []


def _run(text: str, build: str):
    """`build` evaluated in the program's names under PyTorch: the run that shows which verdict is
    right (the programs are our own, as small as the model code they stand for)."""
    torch = pytest.importorskip("torch")
    scope: dict = {}
    exec(compile(text, "fe.py", "exec"), scope)
    return eval(build, {"torch": torch, **scope})


# sam2's vision neck: `hidden_states` is hinted `torch.Tensor` but callers pass a tuple of feature
# maps, one per level, of different channels; `hidden_states[i].permute(0, 3, 1, 2)` is one item,
# so what it teaches (rank 4, its channels) says nothing of the other items
NECK = '''import torch
from torch import nn


class Neck(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(c, 16, 1) for c in (32, 8)])

    def forward(self, hidden_states: torch.Tensor):
        outs = ()
        n = len(self.convs) - 1
        for i in range(n, -1, -1):
            x = hidden_states[i].permute(0, 3, 1, 2)
            outs += (self.convs[n - i](x),)
        return outs
'''


def test_an_item_of_a_parameter_hinted_a_tensor_may_be_an_item_of_a_tuple():
    maps = "(torch.zeros(2, 5, 5, 8), torch.zeros(2, 3, 3, 32))"
    assert [tuple(o.shape) for o in _run(NECK, f"Neck()({maps})")] == [(2, 16, 3, 3), (2, 16, 5, 5)]
    assert _errors(NECK) == []
    assert _errors(NECK.replace("hidden_states: torch.Tensor", "hidden_states")) == []  # (no hint: the same)


def test_a_slice_of_a_parameter_hinted_a_tensor_may_be_a_tuple_of_its_items():
    text = NECK.replace("""        n = len(self.convs) - 1
        for i in range(n, -1, -1):
            x = hidden_states[i].permute(0, 3, 1, 2)
            outs += (self.convs[n - i](x),)""", """        feats = hidden_states[1:]
        for i in range(2):
            outs += (self.convs[i](feats[i].permute(0, 3, 1, 2)),)""")
    maps = "(torch.zeros(1, 1, 1, 1), torch.zeros(2, 3, 3, 32), torch.zeros(2, 5, 5, 8))"
    assert [tuple(o.shape) for o in _run(text, f"Neck()({maps})")] == [(2, 16, 3, 3), (2, 16, 5, 5)]
    assert _errors(text) == []


def test_items_of_a_parameter_used_as_a_tensor_are_its_rows():
    # read as a tensor first, the parameter is one: all its rows have one channel count, which
    # no pair of convolutions wanting 32 and 8 accepts (torch refuses it too)
    text = NECK.replace("        outs = ()\n", "        outs = ()\n        b = hidden_states.shape[1]\n")
    with pytest.raises(RuntimeError):
        _run(text, "Neck()(torch.zeros(2, 2, 5, 5, 8))")
    assert _errors(text) == [(16, "SH101")]


# configuration classes spell their list defaults in the body (`[768, 384, 192, 96] if channels
# is None else channels`, sam2's `backbone_channel_list`) or with a statement (`if depth is None:
# depth = 4`): a default either way, not the configuration a model is built with
STEM = '''import torch
from torch import nn


class StemConfig:
    def __init__(self, widths=None, depth=None):
        self.widths = [64, 32] if widths is None else widths
        if depth is None:
            depth = 4
        self.depth = depth


class Stem(nn.Module):
    def __init__(self, config: StemConfig):
        super().__init__()
        self.proj = nn.Conv2d(3, 16, 1)
        self.head = nn.Conv2d(config.widths[0], 8, 1)
        self.tail = nn.Linear(config.depth, 2)

    def forward(self, x):
        return self.head(self.proj(x))

    def last(self, x):
        return self.tail(x.new_zeros(2, 16))
'''


def test_a_configuration_default_chosen_by_is_none_is_no_fact():
    model = "Stem(StemConfig(widths=[16, 4], depth=16))"
    assert tuple(_run(STEM, f"{model}(torch.zeros(1, 3, 4, 4))").shape) == (1, 8, 4, 4)
    assert tuple(_run(STEM, f"{model}.last(torch.zeros(1, 3, 4, 4))").shape) == (2, 2)
    assert _errors(STEM) == []


def test_a_construction_in_view_that_omits_it_uses_the_default():
    # built with the defaults, the model really has 64 input channels and 4 features: both calls fail
    text = STEM + '''

def build():
    return Stem(StemConfig())(torch.zeros(1, 3, 4, 4))


def build_last():
    return Stem(StemConfig()).last(torch.zeros(1, 3, 4, 4))


def build_other():
    m = Stem(StemConfig(widths=[16], depth=16))
    return m(torch.zeros(1, 3, 4, 4)), m.last(torch.zeros(1, 3, 4, 4))
'''
    for call in ("build()", "build_last()"):
        with pytest.raises(RuntimeError):
            _run(text, call)
    _run(text, "build_other()")
    assert _errors(text) == [(28, "SH101"), (32, "SH101")]
