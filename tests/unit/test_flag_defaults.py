"""A constructor's bool default is one construction of many (issue 24; analysis/flags.py): the
class analysed on its own takes both arms of what the flag decides and joins their shapes, and
reports no error on the arm only the other value takes. Each program is our own, run under
PyTorch with both values of the flag: every shape shown must agree with each run."""
import pytest

torch = pytest.importorskip("torch")

from shapehint.analysis.api import analyze_source  # noqa: E402

from .test_wrong_shapes_models import _agrees, _program, _values  # noqa: E402


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "flags.py").diagnostics if d.severity == "error"]


def _shape(values, function, line):
    hit = [v for v in values if v["function"] == function and v["line"] == line]
    assert hit, (function, line)
    return hit[0]["shape"]


# an arm a flag's non-default value takes may rest on what that construction passes (MONAI's
# DynUNet fills `heads` at run time): no error there; the default's arm is judged as before
ARMS = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, extra: bool = {default}):
        super().__init__()
        self.extra = extra
        self.heads = [torch.rand(1)]

    def forward(self, x):
        if {test}:
            y = torch.nn.functional.interpolate(self.heads[0], x.shape[2:])
        return x
'''


@pytest.mark.parametrize("test", ["self.extra", "not not self.extra", "self.training and self.extra",
                                  "x.dim() == 4 and self.extra"])
def test_no_error_on_the_arm_only_a_flags_other_value_takes(test):
    assert _errors(ARMS.format(default=False, test=test)) == []


@pytest.mark.parametrize("test", ["self.extra", "self.extra or self.training", "not (not self.extra)"])
def test_an_error_on_the_defaults_arm_is_still_reported(test):
    assert _errors(ARMS.format(default=True, test=test)) == [(13, "SH102")]


OPERAND = ARMS.split("    def forward")[0] + """    def forward(self, x):
        y = {expr}
        return x
"""


@pytest.mark.parametrize("default, expr, errors", [
    (False, "self.extra and self.heads[0].view(2, 3)", []),
    (True, "self.extra and self.heads[0].view(2, 3)", [(12, "SH103")]),
    (False, "not self.extra or self.heads[0].view(2, 3)", []),
    (True, "not self.extra or self.heads[0].view(2, 3)", [(12, "SH103")])])
def test_an_operand_only_a_flags_other_value_evaluates_reports_no_error(default, expr, errors):
    assert _errors(OPERAND.replace("{default}", str(default)).replace("{expr}", expr)) == errors


# a flag that picks an input transform whose arms agree (torchvision's GoogLeNet: three channels
# normalised and put back together): the join is that shape, once the next layer fixes it
TRANSFORM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, transform_input: bool = {default}):
        super().__init__()
        self.transform_input = transform_input
        self.conv1 = nn.Conv2d(3, 8, 3)

    def _transform_input(self, x):
        if self.transform_input:
            x_ch0 = torch.unsqueeze(x[:, 0], 1) * 0.5
            x_ch1 = torch.unsqueeze(x[:, 1], 1) * 0.5
            x_ch2 = torch.unsqueeze(x[:, 2], 1) * 0.5
            x = torch.cat((x_ch0, x_ch1, x_ch2), 1)
        return x

    def forward(self, x):
        x = self._transform_input(x)
        return self.conv1(x)
'''


@pytest.mark.parametrize("default", [True, False])
def test_a_flags_arms_that_agree_join_to_their_shape(default):
    src = TRANSFORM.format(default=default)
    values = _values(src)
    assert _shape(values, "Net.forward", 20) == ["x.shape[0]", 3, "x.shape[2]", "x.shape[3]"]
    # the channels put back together along a leading axis of a tensor of unknown rank
    # (its own analysis: `[x.shape[0], 3, *x]`; where the flag's default takes this arm, its one
    # call keeps rank 4 and fills the segment (segment_fill.py); the other value's arm is its own)
    own = ["x.shape[0]", 3, "x.shape[2]", "x.shape[3]"] if default else ["x.shape[0]", 3, "*x"]
    assert _shape(values, "Net._transform_input", 16) == own
    for flag in (True, False):
        seen = []
        net = _program(src)["Net"](transform_input=flag)
        net.conv1.register_forward_hook(lambda m, inp, out: seen.append(list(inp[0].shape)))
        net(torch.zeros(2, 3, 9, 7))
        assert _agrees(_shape(values, "Net.forward", 20), seen[0], {"x.shape[0]": 2, "x.shape[2]": 9, "x.shape[3]": 7})
        if flag and default:  # (the arm the filled shape is for)
            assert _agrees(own, seen[0], {"x.shape[0]": 2, "x.shape[2]": 9, "x.shape[3]": 7})


# an optional parameter the flag creates (timm's BEiT: `q_bias` only with `qkv_bias=True`): the
# code that uses it is the other value's arm, shown with its shape, and judged only for it
BIAS = '''import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, dim: int, qkv_bias: bool = {default}):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        if qkv_bias:
            self.q_bias = nn.Parameter(torch.zeros(dim))
            self.v_bias = nn.Parameter(torch.zeros(dim))
        else:
            self.q_bias = None
            self.v_bias = None
        self.k_bias = nn.Parameter(torch.zeros(2)) if qkv_bias else None

    def forward(self, x):
        if self.q_bias is None:
            qkv = self.qkv(x)
        else:
            bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias), self.v_bias))
            qkv = nn.functional.linear(x, self.qkv.weight, bias)
        if self.k_bias is not None:
            wrong = self.k_bias.view(3, 5)
        return qkv
'''


def test_an_optional_part_a_flag_creates_is_shown_and_judged_for_that_value_only():
    src = BIAS.format(default=False)
    values = _values(src)  # (no error: `k_bias.view(3, 5)` is on the other value's arm)
    assert _shape(values, "Attn.forward", 21) == ["3*dim"]
    seen = []
    attn = _program(src.replace("wrong = self.k_bias.view(3, 5)", "pass"))["Attn"](8, qkv_bias=True)
    attn.register_forward_hook(lambda m, inp, out: seen.append(list(out.shape)))
    attn(torch.zeros(2, 5, 8))
    bias = torch.cat((attn.q_bias, torch.zeros_like(attn.v_bias), attn.v_bias))
    assert _agrees(_shape(values, "Attn.forward", 21), list(bias.shape), {"dim": 8})
    assert _shape(values, "Attn.forward", 22) == ["*x", "3*dim"] and seen[0][-1] == 3 * 8
    # with the flag's default the one that creates the part, its error is every such model's
    assert _errors(BIAS.format(default=True)) == [(24, "SH103")]


# a dict filled in place on a flag's arm (timm's EVA: `embed_args.update(output_fmt='NHWC')` only
# with `dynamic_img_size=True`) holds either arm's keys past it, never the other value's alone
FILLED = '''import torch
from torch import nn


class Embed(nn.Module):
    def __init__(self, dim: int, flatten: bool = True, output_fmt=None):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, 4, 4)
        self.flatten = flatten if output_fmt is None else False

    def forward(self, x):
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)
        return x


class Net(nn.Module):
    def __init__(self, dim: int = 32, dynamic: bool = False):
        super().__init__()
        args = {}
        if dynamic:
            args.update(dict(output_fmt='NHWC'))
        self.embed = Embed(dim, **args)

    def forward(self, x):
        x = self.embed(x)
        return x
'''


def test_a_dict_a_flags_arm_fills_in_place_is_not_that_arms_past_the_if():
    values = _values(FILLED)
    shown = [v["shape"] for v in values if v["function"] == "Net.forward" and v["line"] == 27]
    for dynamic in (False, True):
        out = _program(FILLED)["Net"](dim=8, dynamic=dynamic)(torch.zeros(2, 3, 16, 16))
        env = {"x.shape[0]": 2, "x.shape[2]": 16, "x.shape[3]": 16, "dim": 8}
        for shape in shown:  # (a shape around an unknown segment claims no rank)
            assert any(str(d).startswith("*") for d in shape) or _agrees(shape, list(out.shape), env), shape


# a rank only the other value's arm needs (EVA's `_pos_embed`: `B, H, W, C = x.shape` only with
# `dynamic_img_size=True`) is not the input's rank past the `if`
RANKED = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, dim: int = 8, dynamic: bool = False):
        super().__init__()
        self.dynamic = dynamic
        self.proj = nn.Linear(3, dim)

    def _pos(self, x):
        if self.dynamic:
            B, H, W, C = x.shape
            x = x.view(B, -1, C)
        return x

    def forward(self, x):
        x = self.proj(x)
        x = self._pos(x)
        return x
'''


def test_a_rank_only_a_flags_other_arm_needs_is_not_the_inputs():
    values = _values(RANKED)
    shown = _shape(values, "Net.forward", 18)
    for dynamic, inp in ((False, (2, 5, 3)), (True, (2, 4, 4, 3))):
        out = _program(RANKED)["Net"](dynamic=dynamic).proj(torch.zeros(*inp))
        env = {f"x.shape[{i}]": d for i, d in enumerate(inp)}
        assert any(str(d).startswith("*") for d in shown) or _agrees(shown, list(out.shape), env), shown


# a layer or None a flag chooses (GoogLeNet's `aux1`): the default's, as before flags were
# undecided — a join of the two would make every call of it unknown
AUX = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, aux_logits: bool = True, num_classes: int = 10):
        super().__init__()
        self.fc1 = nn.Linear(3, 16)
        self.aux1 = nn.Linear(16, num_classes) if aux_logits else None

    def forward(self, x):
        x = self.fc1(x)
        if self.aux1 is not None:
            aux1 = self.aux1(x)
        return x
'''


def test_a_layer_or_none_a_flag_chooses_is_the_defaults():
    assert _shape(_values(AUX), "Net.forward", 14) == ["*x", "num_classes"]
