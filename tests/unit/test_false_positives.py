"""Errors no admissible input avoids — and only those. Each case here was reported as an
always-failing assertion on real code (torch's own sources) while the code runs fine."""
import pytest

from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "fp.py").diagnostics if d.severity == "error"]


def test_a_filtered_comprehension_has_an_unknown_length_when_a_filter_is_undecided():
    text = ("import torch\n\nKINDS = ['cuda', 'xpu', 'mps']\n\n\ndef pick():\n"
            "    avail = [k for k in KINDS if getattr(torch, k).is_available()]\n"
            "    assert len(avail) <= 1\n    return avail\n\n\ndef fixed():\n"
            "    evens = [k for k in range(6) if k % 2 == 0]\n    assert len(evens) == 3\n"
            "    assert len(evens) == 4\n    return evens\n")
    assert _errors(text) == [(15, "SH108")]  # decided filters still give the exact length


def test_state_other_methods_assign_is_not_its_init_value():
    text = '''import torch
import torch.nn as nn
from torch.fx.tensor_type import TensorType


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = None
        self.steps = 0
        self.fc = nn.Linear(8, 4)

    def init_hidden(self, b):
        self.hidden = torch.zeros(b, 8)
        self.steps = 0

    def step(self):
        assert self.hidden is not None
        assert self.steps == 0 or self.steps > 0
        return self.hidden

    def head(self, x: TensorType([4, 8])):
        return self.fc(x[:, :5])
'''
    # the layer keeps its configuration: the real error in `head` is still found
    assert _errors(text) == [(23, "SH101")]


@pytest.mark.parametrize("where", [
    "if b > 0:\n            self.hidden = torch.zeros(b, 8)",
    "for _ in range(b):\n            self.hidden = torch.zeros(b, 8)",
    "try:\n            pass\n        except ValueError:\n            self.hidden = torch.zeros(b, 8)",
    "with torch.no_grad():\n            self.hidden, self.steps = torch.zeros(b, 8), 1",
    "match b:\n            case 1:\n                self.hidden = torch.zeros(b, 8)",
])
def test_state_assigned_inside_a_block_of_another_method_is_not_its_init_value(where):
    text = ("import torch\nimport torch.nn as nn\n\n\nclass Stateful(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n        self.hidden = None\n\n"
            f"    def init_hidden(self, b):\n        {where}\n\n"
            "    def step(self):\n        assert self.hidden is not None\n        return self.hidden\n")
    assert _errors(text) == []


def test_one_method_s_assignments_are_not_where_another_starts():
    """The constructor's default (`runner=None`) and `reset()` both leave `fns` None in their
    analyses; `run()` is analysed with an instance some call builds (torch's output_code.py)."""
    text = ("class G:\n    def __init__(self, runner=None):\n"
            "        self.fns = runner.fns if runner is not None else None\n\n"
            "    def reset(self):\n        self.fns = None\n\n"
            "    def run(self):\n        assert self.fns is not None\n        return self.fns\n")
    assert _errors(text) == []


@pytest.mark.parametrize("body", ["assert arg_types is not None", "assert not triton",
                                  "assert arg_types is not None and triton"])
def test_an_assertion_on_a_parameter_taken_at_its_default_is_not_an_error(body):
    text = f"def f(x, arg_types=None, triton=True):\n    {body}\n    return x\n"
    assert _errors(text) == []


def test_a_shape_assertion_after_a_default_still_is():
    """Where a call in view leaves `n` at its default; the function's own analysis takes no
    default for a fact (generic.own_default): a caller passing `n=2` passes the assertion."""
    text = ("from torch.fx.tensor_type import TensorType\n\n\n"
            "def g(x: TensorType([2, 6]), n: int = 3):\n    y = x.view(n, -1)\n    assert y.shape[0] == 2\n"
            "    return y\n")
    assert _errors(text) == []
    assert _errors(text + "\n\ndef h(x: TensorType([2, 6])):\n    return g(x)\n") == [(6, "SH108")]


@pytest.mark.parametrize("fail", ["torch._assert(False, 'targets should not be none')",
                                  "assert False, 'unsupported'", "torch._check(False)",
                                  "torch._check_with(ValueError, False, lambda: 'no')"])
def test_a_check_of_a_literal_false_is_a_raise_not_an_error(fail):
    """torchvision's detection models raise with `torch._assert(False, ...)`; timm with `assert False`."""
    text = ("import torch\n\n\ndef f(x, training):\n"
            f"    if training:\n        {fail}\n"
            f"    if x.dim() != 2:\n        {fail}\n    return x.view(-1)\n\n\n"
            f"def g():\n    {fail}\n")
    assert _errors(text) == []
    # the flow ends there: past the guard, x has the rank it checks
    result = analyze_source(text.replace("return x.view(-1)", "y = x.view(-1)\n    return y"), "fp.py")
    ys = [v.shape for v in result.values if v.name == "y" and v.function == "f"]
    assert ys and all(y is not None and y.rank == 1 and "x.shape[1]" in str(y) for y in ys)


CALLS = '''import torch


def helper(x, flag):
    if flag:
        return x.view(3)
    return x


def always(x):
    return x.view(3)


def f(t: torch.Tensor, c: bool):
    assert t.shape == (4, 5)
    a = helper(t, c)
    b = helper(t, {flag})
    if c:
        d = always(t)
    return a, b
'''


@pytest.mark.parametrize("flag,errors", [("c", []), ("False", []), ("True", [(17, "SH103")])])
def test_a_call_fails_only_where_the_callee_s_path_is_certain(flag, errors):
    """`helper(t, c)` fails only when c is true: inputs with c false avoid it, so it is no error
    (einops' `if len(reduced_axes) > 0: assert reduction_type in _reductions` for "rearrange").
    A call on an undecided path of the caller that always fails is its own line's error."""
    got = _errors(CALLS.format(flag=flag))
    assert got == errors + [(19, "SH103")]


CONTAINERS = '''from typing import Dict, List, Tuple

import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.nf = 3

    def forward(self, features: List[torch.Tensor], pair: Tuple[torch.Tensor, torch.Tensor],
                extra: Dict[str, int], levels: list[torch.Tensor]):
        features = features[1:]  # segmentation_models_pytorch's decoders
        features = features[::-1]
        x = features[0]
        assert len(levels) == self.nf  # ultralytics' ImagePoolingAttn
        a, b = pair
        return x, a, b, extra.get("k", 1)


def gather(hidden, is_index_nonzero, is_local_index_nonzero):
    out = hidden.new_zeros(3, 4)
    out[is_local_index_nonzero[::-1]] = hidden[is_index_nonzero[::-1]]  # longformer: index tuples
    return out
'''


def test_sequence_and_mapping_parameters_are_not_tensors():
    assert _errors(CONTAINERS) == []
    r = analyze_source(CONTAINERS, "fp.py")
    shapes = {v.name: str(v.shape) for v in r.values if v.function == "Decoder.forward" and v.name in ("a", "b")}
    assert shapes == {"a": "[*pair[0]]", "b": "[*pair[1]]"}  # a tuple's tensors, each its own shape


HEAD = '''import torch
import torch.nn as nn


class Detect(nn.Module):
    anchors = torch.empty(0)  # made for the input's shape on the first call
    shape = None

    def __init__(self, nc: int = 80, ch: tuple = ()):
        super().__init__()
        self.nl = len(ch)
        self.cv2 = nn.ModuleList(nn.Conv2d(x, 64, 1) for x in ch)

    def forward(self, x: list[torch.Tensor]):
        bs = x[0].shape[0]
        y = torch.cat([self.cv2[i](x[i]).view(bs, 64, -1) for i in range(self.nl)], -1)
        return y + self.anchors[0]

    def make_anchors(self, y):
        self.anchors, self.shape = torch.zeros(2, y.shape[-1]), y.shape
'''


def test_ultralytics_placeholders_are_not_the_model_s_configuration():
    """`ch=()` is filled by every caller (a head of no levels would `torch.cat` nothing), and
    `anchors = torch.empty(0)` is replaced on the first call (indexing it is no error)."""
    assert _errors(HEAD) == []


def test_a_value_the_analysis_cannot_see_may_be_zero_in_an_assertion():
    """transformers' Reformer: `assert self.num_chunks_before == 0` on `config.lsh_num_chunks_before`
    (a config the module imports): its symbol is >= 1 as a size, but the assertion may hold."""
    text = ("import torch.nn as nn\n\n\nclass Attn(nn.Module):\n    def __init__(self, config):\n"
            "        super().__init__()\n        self.before = config.num_chunks_before\n"
            "        self.proj = nn.Linear(config.hidden_size, 4)\n\n"
            "    def check(self, x):\n        assert self.before == 0 and self.before <= 2\n"
            "        assert self.before * 2 == 3\n        return self.proj(x)\n")
    assert _errors(text) == [(12, "SH108")]  # no int is 3/2: that one still fails


def test_a_list_written_at_an_index_the_analysis_cannot_follow_has_any_item_there():
    text = ("import torch\n\n\ndef f(i: int):\n    heads = [torch.rand(1)] * 2\n"
            "    heads[i - 1] = torch.rand(2, 3, 4)\n    return heads[0].view(24)\n\n\n"
            "def g():\n    heads = [torch.rand(1)] * 2\n    heads[1] = torch.rand(2, 3, 4)\n"
            "    return heads[0].view(24)\n")
    assert _errors(text) == [(13, "SH103")]  # a known index still leaves the others as they were
