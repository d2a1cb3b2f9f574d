"""Wrong shapes found by the real-model benchmark on transformers models (issues 24/25): each
program here is small and our own, run under PyTorch with a configuration other than the
defaults, and every shape the analysis shows for it must agree with the run (or be missing)."""
import pytest

torch = pytest.importorskip("torch")

from shapehint.analysis.api import analyze_source  # noqa: E402
from shapehint.devicerun.compare import Unbound, eval_dim  # noqa: E402


def _values(text):
    res = analyze_source(text, "wrong.py")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    return res.infer_json()["values"]


def _program(text) -> dict:
    """The names `text` defines, run by Python (the program whose shapes are checked)."""
    scope = {}
    exec(compile(text, "wrong.py", "exec"), scope)
    return scope


def _agrees(shape, observed, env) -> bool:
    """`shape` (as infer prints it, no variadic segment) against the observed sizes: the rank, and
    each dim that evaluates under `env`."""
    if shape is None:
        return True
    if len(shape) != len(observed):
        return False
    for d, o in zip(shape, observed):
        if d == "?":
            continue
        try:
            v = eval_dim(d, env)
        except Unbound:
            continue
        if v is not None and v != o:
            return False
    return True


# a configuration's list of sizes (`hidden_sizes`, `depths`; HF ResNet, Swin) builds one stage
# per item: the default's four stages of 256..2048 channels are one configuration of many
STAGES = '''import torch
from torch import nn


class NetConfig:
    def __init__(self, stem=16, hidden_sizes=[256, 512, 1024, 2048], depths=[3, 4, 6, 3]):
        self.stem = stem
        self.hidden_sizes = hidden_sizes
        self.depths = depths


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1)

    def forward(self, x):
        h = self.conv(x)
        return h


class Stage(nn.Module):
    def __init__(self, cin, cout, depth):
        super().__init__()
        self.blocks = nn.Sequential(Block(cin, cout, 2), *[Block(cout, cout) for _ in range(depth - 1)])

    def forward(self, x):
        y = self.blocks(x)
        return y


class Net(nn.Module):
    def __init__(self, config: NetConfig):
        super().__init__()
        self.stem = nn.Conv2d(3, config.stem, 3, 1, 1)
        first = config.hidden_sizes[0]
        self.stages = nn.ModuleList([Stage(config.stem, first, config.depths[0])])
        for (cin, cout), d in zip(zip(config.hidden_sizes, config.hidden_sizes[1:]), config.depths[1:]):
            self.stages.append(Stage(cin, cout, d))

    def forward(self, x):
        h = self.stem(x)
        for stage in self.stages:
            h = stage(h)
        out = h.mean(dim=(2, 3))
        return out
'''


def test_a_configuration_list_default_is_not_the_model_built():
    values = _values(STAGES)
    scope = {}
    exec(compile(STAGES, "wrong.py", "exec"), scope)
    net = scope["Net"](scope["NetConfig"](stem=8, hidden_sizes=[8, 12], depths=[1, 2]))
    x = torch.zeros(2, 3, 16, 16)
    env = {f"x.shape[{i}]": d for i, d in enumerate(x.shape)}
    env.update({"config.stem": 8, "config.hidden_sizes[0]": 8})
    shown = {v["name"]: v["shape"] for v in values if v["function"] == "Net.forward"}
    assert _agrees(shown.get("out"), list(net(x).shape), env)
    # no default width is claimed anywhere, in any context
    claims = [v["shape"] for v in values] + [c["shape"] for v in values for c in v.get("contexts", [])]
    assert not {256, 512, 1024, 2048} & {d for s in claims if s for d in s}
    # what is known still shows: the stem's configured width
    stem = next(v["shape"] for v in values if v["function"] == "Net.forward" and v["name"] == "h")
    assert stem[:2] == ["x.shape[0]", "config.stem"]


# Swin's patch merging: the layers are built with the constructor's `dim` (channels), while
# `forward` unpacks `batch, dim, channels = x.shape` (`dim` the tokens there)
MERGE = '''import torch
from torch import nn


class Merge(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim)

    def forward(self, x: torch.Tensor, size: tuple[int, int]):
        height, width = size
        batch, dim, channels = x.shape
        x = x.view(batch, height // 2, 2, width // 2, 2, channels)
        x = x.permute(0, 1, 3, 2, 4, 5).reshape(batch, -1, 4 * channels)
        y = self.reduction(x)
        return y
'''


def test_a_symbol_a_local_of_the_same_name_shadows_is_not_printed_bare():
    values = _values(MERGE)
    x = torch.zeros(2, 16, 8)
    y = _program(MERGE)["Merge"](8)(x, (4, 4))
    # a reader of `forward` binds its names as the function does
    env = {"batch": 2, "dim": 16, "channels": 8, "height": 4, "width": 4}
    shown = {v["name"]: v["shape"] for v in values if v["function"] == "Merge.forward"}
    assert shown["y"] is not None and _agrees(shown["y"], list(y.shape), env)
    assert shown["y"][:2] == ["batch", "(height//2)*(width//2)"]


def test_a_local_holding_the_same_symbol_keeps_its_name():
    text = MERGE.replace("        batch, dim, channels = x.shape\n",
                         "        batch, _, channels = x.shape\n        dim = self.dim\n").replace(
        "        self.reduction", "        self.dim = dim\n        self.reduction")
    shown = {v["name"]: v["shape"] for v in _values(text) if v["function"] == "Merge.forward"}
    assert shown["y"][2] == "2*dim"


# HF ResNet's bottleneck: one line runs a Sequential of layers whose activation comes from a
# registry the analysis cannot see; the layer built without one (Identity) keeps its shape, the
# others lose it. A context lists the calls of one line as alternatives, so showing the kept
# shape for that line would be judged against every call of it
LAYERS = '''import torch
from torch import nn
from acts_elsewhere import ACTS


class Layer(nn.Module):
    def __init__(self, cin: int, cout: int, activation=None):
        super().__init__()
        self.proj = nn.Linear(cin, cout)
        self.act = ACTS[activation] if activation is not None else nn.Identity()

    def forward(self, x: torch.Tensor):
        h = self.proj(x)
        h = self.act(h)
        return h


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.layers = nn.Sequential(Layer(cin, cout // 4), Layer(cout // 4, cout, "relu"))

    def forward(self, x: torch.Tensor):
        y = self.layers(x)
        return y
'''


def test_a_context_whose_other_calls_lost_the_value_claims_no_shape():
    values = _values(LAYERS)
    acts = type(__import__("sys"))("acts_elsewhere")
    acts.ACTS = {"relu": torch.nn.ReLU()}
    __import__("sys").modules["acts_elsewhere"] = acts
    try:
        scope = {}
        exec(compile(LAYERS, "wrong.py", "exec"), scope)
    finally:
        del __import__("sys").modules["acts_elsewhere"]
    block, x = scope["Block"](6, 8), torch.zeros(2, 6)
    seen = [list(layer(inp).shape) for layer, inp in ((block.layers[0], x), (block.layers[1], block.layers[0](x)))]
    assert seen == [[2, 2], [2, 8]]
    act = next(v for v in values if v["line"] == 14)
    for ctx in act.get("contexts", []):
        if ctx["context"] == "Block.forward:24":
            shape = [d for d in ctx["shape"] if not str(d).startswith("*")]
            assert all(_agrees(shape, obs[-len(shape):], {"cout": 8}) for obs in seen), ctx
    # the layer's own line keeps what every call gives
    assert next(v for v in values if v["line"] == 13)["shape"] == ["*x", "cout"]


# Whisper's attention: one class for self- and cross-attention, told apart by an optional
# argument; analysed on its own, `key_value_states=None` is one possible value, not the value
CROSS = '''import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.k = nn.Linear(d, d)
        self.h = h
        self.hd = d // h

    def forward(self, hidden_states, key_value_states=None):
        bsz, tgt_len = hidden_states.shape[:-1]
        current = key_value_states if key_value_states is not None else hidden_states
        k = self.k(current).view(bsz, -1, self.h, self.hd)
        return k


class Layer(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.self_attn = Attn(d, h)
        self.cross = Attn(d, h)

    def forward(self, x: torch.Tensor, enc: torch.Tensor):
        a = self.self_attn(x)
        b = self.cross(x, key_value_states=enc)
        return a, b
'''


def _agrees_around(shape, observed, env) -> bool:
    """`_agrees` for a shape that may have a variadic segment (`"*x"`): the sizes around it."""
    stars = [i for i, d in enumerate(shape or []) if isinstance(d, str) and d.startswith("*")]
    if not stars:
        return _agrees(shape, observed, env)
    i = stars[0]
    head, tail = shape[:i], shape[i + 1:]
    if len(head) + len(tail) > len(observed):
        return False
    return _agrees(head, observed[:len(head)], env) and _agrees(tail, observed[len(observed) - len(tail):], env)


def test_an_optional_argument_chosen_over_a_tensor_is_not_its_default():
    values = _values(CROSS)
    layer = _program(CROSS)["Layer"](16, 4)
    x, enc = torch.zeros(2, 7, 16), torch.zeros(2, 5, 16)
    a, b = layer(x, enc)
    env = {"bsz": 2, "tgt_len": 7, "d": 16, "h": 4}
    shown = {v["name"]: v for v in values if v["function"] == "Attn.forward"}
    # one analysis of `forward` speaks for the calls with and without `key_value_states`
    for observed in (list(x.shape), list(enc.shape)):
        assert _agrees_around(shown["current"]["shape"], observed, env), shown["current"]
    for observed in (list(a.shape), list(b.shape)):
        assert _agrees_around(shown["k"]["shape"], observed, env), shown["k"]
    # the call that omits it is still shown in its context, exactly
    own = {c["context"]: c["shape"] for c in shown["current"].get("contexts", [])}
    assert own["Layer.forward:26"] == ["x.shape[0]", "x.shape[1]", "d"]


# Swin's attention after its patch merging: an earlier function's local `dim` (tokens) must not
# make the constructor's `dim` (channels) a name of no symbol, which only a local shadows
SHADOWED = '''import torch
from torch import nn


class Pool(nn.Module):
    def forward(self, x):
        batch, dim, channels = x.shape
        y = x.view(batch, dim // 2, 2 * channels)
        return y


class Attn(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.head_size = int(dim / num_heads)
        self.query = nn.Linear(dim, dim)

    def forward(self, hidden_states):
        batch_size, dim, num_channels = hidden_states.shape
        q = self.query(hidden_states).view(batch_size, dim, -1, self.head_size).transpose(1, 2)
        return q
'''


def test_a_symbol_shadowed_after_another_function_named_a_local_alike_is_not_printed_bare():
    values = _values(SHADOWED)
    x = torch.zeros(2, 16, 32)
    q = _program(SHADOWED)["Attn"](32, 4)(x)
    env = {"batch_size": 2, "dim": 16, "num_channels": 32}
    shown = {v["name"]: v["shape"] for v in values if v["function"] == "Attn.forward"}
    assert shown["q"] is not None and _agrees(shown["q"], list(q.shape), env), shown["q"]
    assert shown["q"][2] == "dim"


# a strided conv's output or its input (a downsampling layer that may be the identity): the two
# agree on the batch only, and each other axis is a size of its own — torch gives [2, 32, 8, 8]
# for J(True, 16) on [2, 16, 16, 16], where a shared symbol claimed C == H == W
JOINED = '''import torch
import torch.nn as nn


class J(nn.Module):
    def __init__(self, flag: bool, c: int):
        super().__init__()
        self.flag = flag
        self.conv = nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)

    def forward(self, x):
        B, C0, H0, W0 = x.shape
        y = self.conv(x) if self.flag else x
        B, C, H, W = y.shape
        return y
'''


def test_the_axes_two_joined_tensors_disagree_on_are_sizes_of_their_own():
    from shapehint.analysis.api import analyze_source
    import torch
    res = analyze_source(JOINED, "joined.py")
    shown = next(v["shape"] for v in res.infer_json()["values"] if v["line"] == 13)
    assert shown[0] == "B" and len(set(shown[1:])) == 3, shown
    scope = {}
    exec(compile(JOINED, "joined.py", "exec"), scope)
    out = scope["J"](True, 16)(torch.zeros(2, 16, 16, 16))
    assert list(out.shape) == [2, 32, 8, 8]  # C != H: no shape may print them alike


# timm MetaFormer's stages: a Sequential of stages built in a loop of unknown count, each of which
# downsamples (a norm, then a strided conv) when its width changes. The first stage's input is
# the stem's; the others take what the stages before gave, through the same call sites
STAGE_LOOP = '''import torch
from typing import Tuple
from torch import nn
import torch.nn.functional as F


class Norm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        x = x.permute(0, 3, 1, 2)
        return x


class Down(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.norm = Norm2d(cin)
        self.conv = nn.Conv2d(cin, cout, 3, stride=2, padding=1)

    def forward(self, x):
        x = self.norm(x)
        x = self.conv(x)
        return x


class Stage(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.downsample = nn.Identity() if cin == cout else Down(cin, cout)
        self.mix = nn.Conv2d(cout, cout, 1)

    def forward(self, x):
        x = self.downsample(x)
        B, C, H, W = x.shape
        x = self.mix(x)
        return x


class Net(nn.Module):
    def __init__(self, depths: Tuple[int, ...] = (2, 2, 6, 2), dims: Tuple[int, ...] = (64, 128, 320, 512)):
        super().__init__()
        self.stem = nn.Conv2d(3, dims[0], 4, stride=4)
        stages = []
        prev = dims[0]
        for i in range(len(depths)):
            stages += [Stage(prev, dims[i])]
            prev = dims[i]
        self.stages = nn.Sequential(*stages)

    def forward(self, x):
        x = self.stem(x)
        x = self.stages(x)
        return x
'''


def _joined_by_sites(record) -> dict:
    """A record's contexts, those naming the same call sites joined (as a consumer must judge
    them: it cannot tell their calls apart), keyed by the sites; `None` where ranks differ."""
    groups: dict = {}
    for c in record.get("contexts", []):
        groups.setdefault((c["context"], tuple(c.get("via", ()))), []).append(c["shape"])
    out = {}
    for key, shapes in groups.items():
        if any(any(str(d).startswith("*") for d in s) for s in shapes) or len({len(s) for s in shapes}) > 1:
            out[key] = None
        else:
            out[key] = [col[0] if len(set(map(str, col))) == 1 else "?" for col in zip(*shapes)]
    return out


def test_the_later_units_of_a_sequential_of_unknown_length_are_not_the_first():
    values = _values(STAGE_LOOP)
    net = _program(STAGE_LOOP)["Net"](depths=(1, 1, 1, 1), dims=(16, 32, 64, 128))
    seen = []
    for m in net.modules():
        if type(m).__name__ == "Down":
            m.norm.register_forward_hook(lambda mod, inp, out: seen.append(list(out.shape)))
    x = torch.zeros(2, 3, 64, 64)
    net(x)
    assert seen == [[2, 16, 16, 16], [2, 32, 8, 8], [2, 64, 4, 4]]
    env = {f"x.shape[{i}]": d for i, d in enumerate(x.shape)}
    env["dims[0]"] = 16
    norm = next(v for v in values if v["function"] == "Down.forward" and v["line"] == 22)
    from_net = {k: s for k, s in _joined_by_sites(norm).items() if k[1][:1] == ("Net.forward:53",)}
    for key, shape in from_net.items():  # each context from the model's forward speaks for all its calls
        assert all(_agrees(shape, obs, env) for obs in seen), (key, shape)
    assert norm["shape"] == ["x.shape[0]", "cin", "x.shape[2]", "x.shape[3]"]  # what holds for each


# a flag's default is one construction of many: stages built in a loop with `downsample=i > 0`
# take both arms (timm's Swin stages: the first keeps its input, the others merge patches)
FLAG_STAGES = '''import torch
from torch import nn


class Merge(nn.Module):
    def __init__(self, dim: int, out_dim: int):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, out_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, H, W, C = x.shape
        x = x.reshape(B, H // 2, 2, W // 2, 2, C).permute(0, 1, 3, 4, 2, 5).flatten(3)
        return self.reduction(x)


class Stage(nn.Module):
    def __init__(self, dim: int, out_dim: int, downsample: bool = True):
        super().__init__()
        if downsample:
            self.downsample = Merge(dim, out_dim)
        else:
            assert dim == out_dim
            self.downsample = nn.Identity()
        self.norm = nn.LayerNorm(out_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.downsample(x)
        return self.norm(x)


class Net(nn.Module):
    def __init__(self, dims=(16, 32, 64)):
        super().__init__()
        self.stem = nn.Linear(3, dims[0])
        self.stages = nn.ModuleList([Stage(dims[max(i - 1, 0)], dims[i], downsample=i > 0) for i in range(len(dims))])

    def forward(self, x):
        x = self.stem(x)
        for stage in self.stages:
            x = stage(x)
        return x
'''


def test_a_flag_default_is_not_the_arm_every_construction_takes():
    values = _values(FLAG_STAGES)
    net = _program(FLAG_STAGES)["Net"](dims=(8, 16, 32))
    seen = []
    for m in net.stages:
        m.register_forward_hook(lambda mod, inp, out: seen.append((list(inp[0].shape), list(out.shape))))
    net(torch.zeros(2, 8, 8, 3))
    assert seen[0] == ([2, 8, 8, 8], [2, 8, 8, 8]) and seen[1] == ([2, 8, 8, 8], [2, 4, 4, 16])
    own = next(v for v in values if v["function"] == "Stage.forward" and v["line"] == 27)
    for inp, out in seen:  # the shape shown for the class on its own holds for each stage
        env = {f"x.shape[{i}]": d for i, d in enumerate(inp)}
        assert _agrees(own["shape"], out, env), (own["shape"], inp, out)
    assert own["shape"][0] == "x.shape[0]"
