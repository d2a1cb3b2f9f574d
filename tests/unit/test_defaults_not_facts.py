"""Defaults are not facts (issue 24, semantics 1 and 2): a class analysed on its own takes its
constructor's int defaults and its configuration's attributes as symbols, never as values; the
default is a note on the symbol; a `None` default kept in `self` leaves the branches on it open;
a construction or call in view that omits the argument really uses the default."""
from shapehint.analysis.api import analyze_source


def _infer(text):
    res = analyze_source(text, "defaults.py")
    return res, res.infer_json()


def _shape(out, line, name):
    got = [v["shape"] for v in out["values"] if v["line"] == line and v["name"] == name]
    return got[0] if got else None


def _errors(res):
    return [(d.line, d.code, d.message) for d in res.diagnostics if d.severity == "error"]


BLOCK = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.conv2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return out
'''


def test_a_stride_default_is_a_symbol_not_the_value():
    res, out = _infer(BLOCK)
    # stride=1 would keep H: the class on its own does not know its stride
    assert _shape(out, 14, "out") == ["x.shape[0]", "planes", "(x.shape[2] - 1)//stride + 1",
                                      "(x.shape[3] - 1)//stride + 1"]
    assert "default 1" in res.dims["stride"].origin
    assert res.dims["stride"].default == 1


def test_a_none_default_kept_in_self_leaves_its_branch_open_and_in_place_add_keeps_the_shape():
    res, out = _infer(BLOCK)
    # downsample may be a layer: `identity` is not `x` alone, so `out += identity` neither
    # broadcasts to max(inplanes, planes) nor pins the stride; in place, `out` keeps its shape
    assert _shape(out, 18, "out") == _shape(out, 15, "out")
    assert not _errors(res)


BUILT_WITH_STRIDE_2 = BLOCK + '''

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(8, 16, stride=2, downsample=nn.Conv2d(8, 16, 1, 2))

    def forward(self, x):
        assert x.shape == (2, 8, 32, 32)
        return self.block(x)
'''


def test_a_construction_in_view_gives_its_values_as_a_context():
    res, out = _infer(BUILT_WITH_STRIDE_2)
    rec = [v for v in out["values"] if v["line"] == 14 and v["name"] == "out"][0]
    assert rec["shape"][2] == "(x.shape[2] - 1)//stride + 1"  # the generic shape, in its own names
    (ctx,) = [c["shape"] for c in rec.get("contexts", [])]  # Net's: 16 planes, H and W halved
    assert ctx[1] == 16 and ctx[2] in (16, "(x.shape[2] - 1)//2 + 1")
    assert not _errors(res)


MODULE_CALL = BLOCK + '''

m = Block(8, 8)
y = m(torch.zeros(2, 8, 16, 16))
'''


def test_a_call_in_view_that_omits_the_argument_uses_the_default():
    res, out = _infer(MODULE_CALL)
    assert _shape(out, 23, "y") == [2, 8, 16, 16]  # stride 1: H and W kept
    assert not _errors(res)


GROUPS = '''import torch
from torch import nn


class GN(nn.Module):
    def __init__(self, groups=32):
        super().__init__()
        self.norm = nn.GroupNorm(groups, 8)

    def forward(self, x):
        assert x.dim() == 4 and x.shape[1] == 8
        return self.norm(x)
'''


def test_a_groups_default_causes_no_error():
    # 8 channels are not divisible by 32 groups, but a model may build GN(groups=8)
    res, _ = _infer(GROUPS)
    assert _errors(res) == []


CONFIG = '''import torch
from torch import nn


class MyConfig:
    def __init__(self, hidden_size=64, num_mel_bins=80, n_head=4, **kwargs):
        self.hidden_size = hidden_size
        self.num_mel_bins = num_mel_bins
        self.num_heads = n_head


class Encoder(nn.Module):
    def __init__(self, config: MyConfig):
        super().__init__()
        self.conv = nn.Conv1d(config.num_mel_bins, config.hidden_size, 3, padding=1)
        self.heads = config.num_heads

    def forward(self, feats):
        assert feats.dim() == 3 and feats.shape[1] == 10
        h = self.conv(feats)
        h = h.view(h.shape[0], self.heads, -1, h.shape[-1])
        return h
'''


def test_config_attributes_are_symbols_named_after_the_config():
    res, out = _infer(CONFIG)
    # 80 mel bins is MyConfig's default, not the config's value: no "expects 80 input channels"
    assert _errors(res) == []
    assert _shape(out, 20, "h") == ["feats.shape[0]", "config.hidden_size", "feats.shape[2]"]
    # `self.num_heads = n_head` is read as `config.num_heads`
    assert _shape(out, 21, "h")[1] == "config.num_heads"
    assert res.dims["config.hidden_size"].default == 64
    assert "default 80" in res.dims["config.num_mel_bins"].origin


DATACLASS = '''from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Cfg:
    depth: int
    width: int = 48


class Model(nn.Module):
    def __init__(self, cfg: Cfg):
        super().__init__()
        self.fc = nn.Linear(cfg.width, 2 * cfg.width)

    def forward(self, x):
        return self.fc(x)


def run(x):
    m = Model(Cfg(depth=2))
    y = m(x)
    return y
'''


def test_dataclass_fields_are_symbols_and_a_construction_in_view_uses_its_defaults():
    res, out = _infer(DATACLASS)
    assert _shape(out, 24, "y") == ["*x", 96]  # Cfg(depth=2) omits width: 48 here
    assert res.dims["cfg.width"].default == 48


SPATIAL = '''import torch
from torch import nn


class Stem(nn.Module):
    def __init__(self, cin, cout, spatial_dims=3):
        super().__init__()
        conv = nn.Conv3d if spatial_dims == 3 else nn.Conv2d
        self.conv = conv(cin, cout, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return y
'''


def test_a_spatial_dims_default_does_not_fix_the_rank():
    # built 2-D (spatial_dims=2) this is a Conv2d: a 5-D shape would be wrong for it
    res, out = _infer(SPATIAL)
    y = _shape(out, 12, "y")
    # a segment of unknown length (`*?`) claims no rank: the axes both builds share may show
    assert y is None or len(y) != 5 or any(str(d).startswith("*") for d in y)
    if y is not None and any(str(d).startswith("*") for d in y):
        assert y[:2] == ["x.shape[0]", "cout"] and [str(d) for d in y].count("*?") == 1, y
    assert _errors(res) == []


ANNOTATED = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1)

    def forward(self, x):
        out = self.conv1(x)
        return out
'''


def test_an_annotated_int_default_is_a_symbol_too():
    _, out = _infer(ANNOTATED)
    assert _shape(out, 11, "out")[2] == "(x.shape[2] - 1)//stride + 1"


def test_hover_shows_the_default_as_a_note():
    """The editor's hover on `out` lists `stride` with its origin and its default, not as a value."""
    from shapehint.lsp.features.hover import hover
    res, _ = _infer(BLOCK)
    text = hover(res, 14, 9).markdown
    assert "stride" in text.split("\n")[0]  # in the shape itself
    assert "- `stride`: constructor parameter `stride` of `Block` (default 1)" in text


CONFIG_FLAG = '''import torch
from torch import nn


class TinyConfig:
    def __init__(self, hidden_size=16, use_prompt=False):
        self.hidden_size = hidden_size
        self.use_prompt = use_prompt


class Model(nn.Module):
    def __init__(self, config: TinyConfig):
        super().__init__()
        self.use_prompt = config.use_prompt
        self.proj = nn.Linear(config.hidden_size, 4)

    def tune(self):
        assert self.use_prompt, "needs use_prompt=True"
        return 1

    def forward(self, x):
        return self.proj(x)
'''


def test_a_configuration_flag_default_is_not_a_fact():
    # `use_prompt=False` is the configuration class's default, not every configuration's: the
    # assertion on it holds for some configurations, so it is no error
    res, _ = _infer(CONFIG_FLAG)
    assert _errors(res) == []


STEM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, stem_type="", width=32, act="relu"):
        super().__init__()
        deep = "deep" in stem_type
        if deep:
            self.stem = nn.Conv2d(3, width * 2, 3, 2, 1)
        else:
            self.stem = nn.Conv2d(3, 64, 7, 2, 3)
        self.act = {"relu": nn.ReLU(), "gelu": nn.GELU()}[act]

    def forward(self, x):
        h = self.stem(x)
        a = self.act(h)
        return a


def deep_net():
    return Net("deep", 16)
'''


def test_a_string_default_that_picks_the_architecture_is_not_a_fact():
    """(issue 24, timm ResNet's `stem_type=''`) Built with `stem_type='deep'` the stem makes
    `2 * width` channels, not the default's 64: the class on its own claims neither."""
    res, out = _infer(STEM)
    h = _shape(out, 16, "h")
    assert h[0] == "x.shape[0]" and h[1] != 64 and h[2:] == ["(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    # read as itself where it decides no path: the registry's layer keeps the shape
    assert _shape(out, 17, "a")[2:] == h[2:]
    assert _errors(res) == []
