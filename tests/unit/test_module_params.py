"""A layer's `weight` and `bias` attributes are its parameters (or None), never the `bias=True`
it was built with; `torch.nn.init` keeps what it fills (its rules: tests/ops/test_init.py)."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn
import torch.nn.functional as F


def f(x: torch.Tensor):
    assert x.shape == (2, 4)
    fc = nn.Linear(4, 8)
    bare = nn.Linear(4, 8, bias=False)
    b = nn.init.zeros_(fc.bias)
    y = F.linear(x, fc.weight, fc.bias)
    if bare.bias is None:
        z = y
    else:
        z = y.view(3)
    e = nn.init.eye_(fc.bias)
    return z
'''


def test_bias_is_the_parameter():
    r = analyze_source(SRC, "p.py")
    shapes = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert shapes["b"] == [8] and shapes["y"] == [2, 8] and shapes["z"] == [2, 8]
    # `bare.bias is None` is decided, so `y.view(3)` never runs; `eye_` needs a matrix
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(16, "SH102")]


PARTIAL = '''import functools
from functools import partial

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, norm_layer=partial(nn.LayerNorm, eps=1e-6),
                 act=functools.partial(nn.GELU, approximate="tanh")):
        super().__init__()
        dim = 64  # in the code: a default `dim=64` would be a symbol (defaults.py)
        self.norm = norm_layer(dim)
        self.act = act()
        self.fc = partial(nn.Linear, bias=False)(dim, 2 * dim)

    def forward(self, x: torch.Tensor):
        assert x.shape[-1] == 64
        h = self.act(self.norm(x))
        y = self.fc(h)
        return y
'''


def test_layers_built_through_functools_partial():
    """timm's and torchvision's `norm_layer=partial(nn.LayerNorm, eps=1e-6)`."""
    r = analyze_source(PARTIAL, "p.py")
    layers = {v.name: v.text for v in r.values if v.kind == "layer"}
    assert layers["self.norm"].startswith("LayerNorm(normalized_shape=64, eps=1e-06")
    assert layers["self.fc"] == "Linear(in_features=64, out_features=128, bias=False)"
    shapes = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert shapes["y"] == ["*x", 128]
    bad = analyze_source(PARTIAL.replace("== 64", "== 32"), "p.py")
    assert [(d.line, d.code) for d in bad.diagnostics if d.severity == "error"] == [(19, "SH101")]


def test_a_model_over_another_librarys_base_class_runs_its_forward():
    """transformers' `self.bert(input_ids)`: BertModel derives from PreTrainedModel, which we do
    not read, so it was no module and the call's result was unknown. A subclass of a torch layer
    reads the state that layer's __init__ set (`self.normalized_shape`): the layer as its
    `super().__init__(dim)` built it, one per instance (Norm(8) and Norm(4) differ)."""
    src = '''import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import PreTrainedModel


class Base(PreTrainedModel):
    pass


class Inner(Base):
    def __init__(self, config):
        super().__init__(config)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)


class Norm(nn.LayerNorm):
    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class Outer(Base):
    def __init__(self, config):
        super().__init__(config)
        self.inner = Inner(config)
        self.a, self.b = Norm(8), Norm(4)

    def forward(self, x: torch.Tensor):
        assert x.shape == (2, 8)
        y = self.inner(self.a(x))
        z = self.b(y)
        return z
'''
    r = analyze_source(src, "p.py")
    shapes = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert shapes["y"] == [2, 4] and shapes["z"] == [2, 4]
    assert not [d for d in r.diagnostics if d.severity == "error"]
    r2 = analyze_source(src.replace("self.b(y)", "self.a(y)"), "p.py")  # Norm(8) on 4 features
    assert [d.code for d in r2.diagnostics if d.severity == "error"] == ["SH101"]


def test_a_layer_subclass_s_own_methods_see_its_layer():
    """Each method's generic analysis starts from a copy of the generic instance: the copy keeps
    the torch layer it was built as, and a Sequential subclass's layers."""
    src = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class LayerNorm2d(nn.LayerNorm):
    def __init__(self, num_channels: int = 64, eps: float = 1e-6):
        super().__init__(num_channels, eps=eps)

    def forward(self, x):
        w = self.weight
        return F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, w, self.bias, self.eps)


class Stem(nn.Sequential):
    def __init__(self):
        super().__init__(nn.Conv2d(3, 8, 3), nn.ReLU())

    def features(self, x):
        y = self(x)
        return y
'''
    shapes = {v["name"]: v["shape"] for v in analyze_source(src, "m.py").infer_json()["values"]}
    assert shapes["w"] == ["num_channels"]  # the layer's weight, of the constructor's (symbolic) size
    assert shapes["y"][1] == 8 and len(shapes["y"]) == 4


def test_activation_checkpointing_returns_what_the_call_returns():
    """torch.utils.checkpoint and timm's checkpoint_seq only recompute: `if self.grad_checkpointing`
    no longer joins a known branch with an unknown one. (The switch is a constructor flag here, so
    both arms run: one `__init__` sets to a constant is off as constructed and its arm is not run,
    test_switch_attributes.py.)"""
    src = '''import torch
import torch.nn as nn
import torch.utils.checkpoint as cp
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
from timm.models._manipulate import checkpoint_seq


class Net(nn.Module):
    def __init__(self, grad_checkpointing: bool = False):
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
        self.fc = nn.Linear(8, 4)
        self.grad_checkpointing = grad_checkpointing

    def set_grad_checkpointing(self, enable=True):
        self.grad_checkpointing = enable

    def forward(self, x: torch.Tensor):
        assert x.shape == (2, 8)
        if self.grad_checkpointing:
            h = checkpoint_seq(self.blocks, x)
        else:
            h = self.blocks(x)
        y = checkpoint(self.fc, h, use_reentrant=False)
        z = cp.checkpoint(self.fc, h)
        w = checkpoint_sequential(self.blocks, 2, x)
        return y, z, w
'''
    got = [(v["line"], v["name"], v["shape"]) for v in analyze_source(src, "c.py").infer_json()["values"]]
    assert got == [(21, "h", [2, 8]), (23, "h", [2, 8]), (24, "y", [2, 4]), (25, "z", [2, 4]), (26, "w", [2, 8])]


def test_checkpointing_wrappers_are_known_by_their_name_wherever_they_come_from():
    """A library's own wrappers of torch's checkpointing, imported from a module the analysis does
    not follow, are known by the name they share with torch's; a function of another name from
    the same module is not followed (nothing is claimed for its result)."""
    src = '''import torch
import torch.nn as nn
from ._ckpt import checkpoint, checkpoint_seq, shuffle


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 6))
        self.fc = nn.Linear(6, 4)

    def forward(self, x: torch.Tensor):
        assert x.shape == (2, 8)
        h = checkpoint_seq(self.blocks, x)
        y = checkpoint(self.fc, h)
        z = shuffle(self.fc, h)
        return y, z
'''
    got = {v["name"]: v["shape"] for v in analyze_source(src, "c.py").infer_json()["values"]}
    assert got["h"] == [2, 6] and got["y"] == [2, 4]
    assert "z" not in got


def test_multihead_attention_on_a_query_of_unknown_rank_keeps_its_shape():
    """DETR's encoder layer: `src` is unannotated, so its rank is open; (L, N, E), (N, L, E) and
    (L, E) all come out as they go in, once the last dimension is the embedding."""
    src = '''import torch
import torch.nn as nn


class EncLayer(nn.Module):
    def __init__(self, d_model: int = 256, nhead: int = 8):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead)
        self.linear = nn.Linear(d_model, 1024)

    def forward(self, src, pos=None):
        q = k = src if pos is None else src + pos
        src2 = self.self_attn(q, k, value=src)[0]
        out = self.linear(src + src2)
        return out


def run(x: torch.Tensor):
    assert x.shape == (10, 2, 128)
    return EncLayer()(x)
'''
    r = analyze_source(src, "detr.py")
    shapes = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    # the layer on its own: `d_model` is a symbol (its default 256 is one value callers may pass)
    assert shapes["src2"] == ["*src", "d_model"] and shapes["out"] == ["*src", 1024]
    # `EncLayer()` omits it: that construction really uses 256
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(20, "SH101")]  # 128 != 256
