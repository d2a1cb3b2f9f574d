"""Modules assembled at run time (issue 27): stages built in loops and helpers, block classes
passed as arguments, config lists, `partial` norm layers, models returned by factories.

The programs are in tests/unit/assembled/; each shape ShapeHint gives is also evaluated against
what torch computes for the same model (`_check_against_torch`): a printed dim is a Python
expression over `x.shape[i]`, so it is evaluated with the real input."""
import functools
import os
import re

import pytest

from shapehint.analysis.api import analyze_source

HERE = os.path.join(os.path.dirname(__file__), "assembled")


@functools.lru_cache(maxsize=None)
def _answer(name):
    path = os.path.join(HERE, name)
    with open(path) as f:
        src = f.read()
    return analyze_source(src, path).infer_json()


def _module(name):
    """The program `name` of tests/unit/assembled, imported (to run it with torch)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shapes(answer, function):
    return {v["line"]: v for v in answer["values"] if v["function"] == function and v["name"] in ("x", "y", "h", "result")}


def _built_by(value, factory):
    """The shape a line has in the model `factory` returns (its construction context)."""
    got = [c["shape"] for c in value.get("contexts", []) if c["context"].split(":")[0] == factory]
    assert len(got) == 1, value
    return got[0]


def _dims(shape, x, defaults=None):
    """The sizes a printed shape stands for with input `x` (None for a "?"); `defaults`: the
    values of the constructor parameters a class analysed on its own names (issue 24: a default
    is one possible value, so it prints as the parameter) in the model run."""
    env = {"x": x, "max": max, "min": min, **(defaults or {})}
    return [None if d == "?" else d if isinstance(d, int) else eval(d, env) for d in shape]


def _check_against_torch(model, shape, x, upto, defaults=None):
    """`shape` (ShapeHint's, for the value of `model`'s forward after running `upto`) agrees with
    torch on every dim it claims."""
    import torch
    with torch.no_grad():
        got = list(upto(model, x).shape)
    claimed = _dims(shape, x, defaults)
    assert len(claimed) == len(got)
    for c, g in zip(claimed, got):
        assert c is None or c == g, (shape, got)


def test_stages_built_by_a_helper_method_from_a_block_class_argument():
    """`_stage(block, planes, blocks, stride)` appending `block(...)` in a loop, `block.expansion`,
    an optional downsample: the model each factory returns runs in that construction context,
    `QUALNAME:LINE` of the factory, so everything after the stages has a shape there (before:
    nothing after the stem). The class on its own (`block`, `layers` unknown) has none: other
    code may build it otherwise."""
    got = _shapes(_answer("stages.py"), "Net.forward")
    assert _built_by(got[48], "net_small") == ["x.shape[0]", 32, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert _built_by(got[48], "net_wide") == ["x.shape[0]", 64, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert _built_by(got[49], "net_small") == ["x.shape[0]", 32, 1, 1]
    # (`net_wide(**kwargs)` may pass any `num_classes`: its default 10 is one possible value)
    assert _built_by(got[51], "net_wide") == ["x.shape[0]", "num_classes"]
    assert [c["context"] for c in got[47]["contexts"]] == ["net_small:61", "net_wide:80"]
    assert got[48]["shape"] is None and got[46]["shape"] == ["x.shape[0]", 16, "x.shape[2]", "x.shape[3]"]


def test_stage_shapes_agree_with_torch():
    torch = pytest.importorskip("torch")
    mod = _module("stages")
    got = _shapes(_answer("stages.py"), "Net.forward")
    x = torch.randn(2, 3, 13, 10)
    for factory in (mod.net_small, mod.net_wide):
        model = factory().eval()
        for line, upto in ((47, lambda m, x: m.layer1(m.stem(x))), (48, lambda m, x: m.layer2(m.layer1(m.stem(x)))),
                           (51, lambda m, x: m(x))):
            _check_against_torch(model, _built_by(got[line], factory.__name__), x, upto, dict(num_classes=10))


def test_a_stack_of_unknown_depth_is_not_the_identity():
    """`Sequential(*[Conv2d(stride=2) for _ in range(depth)])` with `depth` unknown: the sides
    it halves an unknown number of times are unknown, never the input's."""
    got = _shapes(_answer("stages.py"), "Halving.forward")
    assert got[91]["shape"] == ["x.shape[0]", 8, "?", "?"]


def test_config_list_with_string_markers_builds_the_features():
    """`for v in cfg: if v == "M": ...` over `[8, "M", 16, "M"]`: an int never equals a string,
    so each item takes its own arm (before: both, and the features were unknown)."""
    got = _shapes(_answer("cfglist.py"), "Net.forward")
    for factory in ("net_a", "net_a_direct"):
        assert _built_by(got[33], factory) == ["x.shape[0]", 16, "(x.shape[2]//2)//2", "(x.shape[3]//2)//2"]
    # `net_a(**kwargs)` may pass any `num_classes`; `net_a_direct()` takes the default
    assert _built_by(got[36], "net_a") == ["x.shape[0]", "num_classes"]
    assert _built_by(got[36], "net_a_direct") == ["x.shape[0]", 10]


def test_config_list_agrees_with_torch():
    torch = pytest.importorskip("torch")
    mod = _module("cfglist")
    got = _shapes(_answer("cfglist.py"), "Net.forward")
    x = torch.randn(1, 3, 19, 22)
    _check_against_torch(mod.net_a(), _built_by(got[33], "net_a"), x, lambda m, x: m.features(x))


def test_partial_norm_layers_and_settings_lists():
    """`norm_layer = partial(nn.BatchNorm2d, eps=...)` passed down (`if norm_layer is None:` is
    decided: a partial is not None), a Sequential subclass whose activation gets `**params` from
    `{} if inplace is None else {...}`, stages from a list of settings: the whole forward has
    shapes (before: only `self.features[0](x)`)."""
    got = _shapes(_answer("inverted.py"), "Net.forward")
    assert got[57]["shape"] == ["x.shape[0]", 64, "(((x.shape[2] - 1)//2)//2)//2 + 1",
                                "(((x.shape[3] - 1)//2)//2)//2 + 1"]
    assert got[60]["shape"] == ["x.shape[0]", "num_classes"]  # the default 10 is one possible value


def test_inverted_residual_stages_agree_with_torch():
    torch = pytest.importorskip("torch")
    mod = _module("inverted")
    got = _shapes(_answer("inverted.py"), "Net.forward")
    x = torch.randn(2, 3, 33, 18)
    _check_against_torch(mod.Net().eval(), got[57]["shape"], x, lambda m, x: m.features(x))


# identifiers of libraries' model code: a mechanism that names one is not general (issue 27)
LIBRARY_IDENTIFIERS = {"_make_layer", "make_layers", "Conv2dNormActivation", "ConvNormActivation", "ACT2FN",
                       "ALL_ATTENTION_FUNCTIONS", "_efficientnet_conf", "InvertedResidual", "BasicBlock",
                       "Bottleneck", "MBConvConfig", "create_conv2d", "get_norm_act_layer", "_make_divisible",
                       "_manipulate", "CNBlockConfig", "downsampling_layer", "bn_function", "_DenseLayer",
                       "timm", "transformers", "torchvision"}


def _code_words(text):
    """The names and the words of string literals in code: comments and docstrings (which may say
    what a mechanism is for) left out."""
    import io
    import tokenize
    words, prev = [], tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if tok.type == tokenize.NAME:
            words.append(tok.string)
        elif tok.type == tokenize.STRING and prev not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            words.extend(re.findall(r"\w+", tok.string))
        prev = tok.type
    return words


def test_nothing_in_the_server_names_a_library_identifier():
    root = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "server", "shapehint")
    found = []
    for d, _, files in os.walk(root):
        if "_shared" in d.split(os.sep):
            continue
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(d, name)) as f:
                    found += [(name, w) for w in _code_words(f.read()) if w in LIBRARY_IDENTIFIERS]
    assert found == []


def test_the_identifier_check_sees_code_not_docstrings():
    assert "_make_layer" in _code_words('NAMES = {"_make_layer"}\n')
    assert _code_words('def f():\n    """calls _make_layer"""\n    return 1  # _make_layer\n') == ["def", "f", "return"]


def test_channel_rounding_with_float_multipliers():
    """`int(v + d / 2) // d * d`, `if new_v < 0.9 * v`, `max(1.0, width)`: known numbers, floats
    among them, are computed and compared as Python does (before: the widths were unknown)."""
    answer = _answer("rounding.py")
    got = _shapes(answer, "Net.forward")
    # the class on its own: `width=1.0` is one value callers may pass, so no width is claimed
    # from it (a float default is not a fact, issue 24), only the layer holding it is named
    # (held_sizes.py); the factory in view builds 0.75
    assert got[24]["shape"][1] == "self.stem.out_channels" and got[25]["shape"][1] == "self.head.out_channels"
    assert _built_by(got[24], "narrow")[1] == 24 and _built_by(got[25], "narrow")[1] == 104
    torch = pytest.importorskip("torch")
    mod = _module("rounding")
    x = torch.randn(2, 3, 9, 9)
    _check_against_torch(mod.narrow(), _built_by(got[25], "narrow"), x, lambda m, x: m.head(m.stem(x)))
    _check_against_torch(mod.narrow(), _built_by(got[24], "narrow"), x, lambda m, x: m.stem(x))
    for width in (0.3, 1.0, 1.7):
        m = mod.Net(width)
        assert list(m.head(m.stem(x)).shape)[1] == m.head.out_channels
        assert list(m.stem(x).shape)[1] == m.stem.out_channels


def test_stages_from_config_objects_made_by_a_partial_and_copied_in_the_loop():
    """Config objects made in a module-level function through `partial(Cfg, width_mult=...)`,
    `copy.copy(cnf)` changed for the blocks after a stage's first: each factory's widths and
    depths (before: nothing after the stem)."""
    got = _shapes(_answer("configs.py"), "Net.forward")
    by = {name: _built_by(got[64], name) for name in ("net_b0", "net_b2")}
    assert by["net_b0"][1] == 160 and by["net_b2"][1] == 176
    assert _built_by(got[67], "net_b2") == ["x.shape[0]", "num_classes"]  # (`**kwargs` may hold any)
    torch = pytest.importorskip("torch")
    mod = _module("configs")
    x = torch.randn(2, 3, 17, 9)
    for name in ("net_b0", "net_b2"):
        _check_against_torch(getattr(mod, name)().eval(), by[name], x, lambda m, x: m.features(x))


def test_dense_blocks_registered_under_names_built_in_a_loop():
    """`self.add_module("layer%d" % (i + 1), ...)` in a ModuleDict subclass whose forward runs
    `for name, layer in self.items()` over a list of features it appends to; a Sequential built
    from an OrderedDict and grown by `add_module`, a Sequential subclass with assigned layers:
    (before: the names were unknown, the second layer replaced the first, a false error)."""
    answer = _answer("dense.py")
    assert [d for d in answer["diagnostics"] if d["severity"] == "error"] == []
    got = {v["line"]: v["shape"] for v in answer["values"] if v["function"] == "Net.forward"}
    # (the constructor's defaults growth=4, init=8, num_classes=10 are possible values: symbols)
    assert got[56] == ["x.shape[0]", "4*growth + init//2", "x.shape[2]//2", "x.shape[3]//2"]
    assert got[59] == ["x.shape[0]", "num_classes"]
    torch = pytest.importorskip("torch")
    mod = _module("dense")
    x = torch.randn(2, 3, 9, 10)
    _check_against_torch(mod.Net().eval(), got[56], x, lambda m, x: m.features(x), dict(growth=4, init=8))


def test_names_made_by_formatting():
    src = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        for i in range(2):
            setattr(self, f"layer{i + 1}", nn.Linear(4 * (i + 1), 4 * (i + 2)))
        self.add_module("head" + "_" + "%d" % 3, nn.Linear(12, 2))

    def forward(self, x):
        z = self.layer2(self.layer1(x))
        for i in range(2):
            x = getattr(self, "layer%d" % (i + 1))(x)
        y = self.head_3(x)
        return y
'''
    got = {v["line"]: v["shape"] for v in analyze_source(src, "names.py").infer_json()["values"]}
    assert got[13] == ["*x", 12] and got[16] == ["*x", 2]


def test_a_sequential_of_an_ordered_dict_not_followed_is_unknown_not_the_identity():
    """`nn.Sequential(OrderedDict(blocks))` with `blocks` grown over widths the analysis does not
    know: before, an empty Sequential, so the trunk's output was its input (a wrong shape). Some
    number of strided convs of widths not known keep only the batch (conv.py, `size_or_fresh`:
    a conv's lost widths are sizes of their own; test_lost_layer_sizes.py)."""
    src = '''from collections import OrderedDict
from torch import nn


class Net(nn.Module):
    def __init__(self, widths):
        super().__init__()
        blocks = []
        cin = 8
        for i, w in enumerate(widths):
            blocks.append((f"block{i}", nn.Conv2d(cin, w, 3, 2, 1)))
            cin = w
        self.stem = nn.Conv2d(3, 8, 1)
        self.trunk = nn.Sequential(OrderedDict(blocks))

    def forward(self, x):
        x = self.stem(x)
        x = self.trunk(x)
        return x
'''
    got = {v["line"]: v["shape"] for v in analyze_source(src, "od.py").infer_json()["values"]}
    assert got[17] == ["x.shape[0]", 8, "x.shape[2]", "x.shape[3]"]
    assert got.get(18) == ["x.shape[0]", "?", "?", "?"]


def test_lambdas_mapped_over_chunks_and_einops_layers():
    """`q, k, v = map(lambda t: rearrange(t, "b n (h d) -> b h n d", h=self.heads), qkv)`: a
    lambda is a function of its body (reading `self` from where it is made), `map` applies it to
    each known item; einops' Rearrange/Reduce layers inside Sequentials (before: nothing after
    the patch embedding)."""
    got = {(v["line"], v["name"]): v["shape"] for v in _answer("heads.py")["values"]}
    # (dim=32, heads=4 are the constructor's defaults: possible values, so symbols)
    assert got[(19, "q")] == got[(19, "v")] == [2, "heads", 16, "dim//heads"]
    assert got[(21, "o")] == [2, 16, "heads*(dim//heads)"] and got[(22, "r")] == [2, 5, "heads*(dim//heads)"]
    assert got[(24, "y")] == [2, 10]
    torch = pytest.importorskip("torch")
    pytest.importorskip("einops")
    mod = _module("heads")
    m = mod.Attn()
    x = m.patch(torch.randn(2, 3, 16, 16))
    q = mod.rearrange(m.qkv(x).chunk(3, dim=-1)[0], "b n (h d) -> b h n d", h=m.heads)
    assert list(q.shape) == _dims(got[(19, "q")], x, dict(dim=32, heads=4))
    assert list(m.pool(x).shape) == got[(24, "y")]


def test_modules_added_under_names_not_known_are_not_a_fixed_set():
    """`add_module(name, layer)` in a loop of unknown count with a name made from the loop's
    index: which layers the ModuleDict holds is unknown (before: each pass's layer replaced the
    last, and `items()` ran one layer where there are several: a false error)."""
    src = '''import torch
from torch import nn


class Block(nn.ModuleDict):
    def __init__(self, n, cin, growth):
        super().__init__()
        for i in range(n):
            self.add_module("layer%d" % (i + 1), nn.Conv2d(cin + i * growth, growth, 1))

    def forward(self, x):
        feats = [x]
        for name, layer in self.items():
            feats.append(layer(torch.cat(feats, 1)))
        out = torch.cat(feats, 1)
        return out
'''
    answer = analyze_source(src, "block.py").infer_json()
    assert [d for d in answer["diagnostics"] if d["severity"] == "error"] == []
    got = {v["line"]: v["shape"] for v in answer["values"]}
    assert got.get(15) is None or "?" in got[15][1:2] or not isinstance(got[15][1], int)


def test_a_table_read_by_an_unknown_key_stays_known_for_the_known_keys():
    """`_net(key)` reads `TABLE[key]` with `key` unknown in its own analysis: that must not make
    the table's config lists unknown for the factories that pass a known key (before: every
    line of `forward` after `self.features(x)` had no shape in any context)."""
    got = _shapes(_answer("cfgtable.py"), "Net.forward")
    assert _built_by(got[13], "net_s") == ["x.shape[0]", 24, "x.shape[2]//2", "x.shape[3]//2"]
    assert _built_by(got[13], "net_t") == ["x.shape[0]", 24, "(x.shape[2]//2)//2", "(x.shape[3]//2)//2"]
    assert _built_by(got[16], "net_s") == ["x.shape[0]", 10]


def test_a_table_read_by_an_unknown_key_agrees_with_torch():
    torch = pytest.importorskip("torch")
    mod = _module("cfgtable")
    got = _shapes(_answer("cfgtable.py"), "Net.forward")
    x = torch.randn(2, 3, 17, 12)
    for factory in (mod.net_s, mod.net_t):
        _check_against_torch(factory(), _built_by(got[13], factory.__name__), x, lambda m, x: m.features(x))



def test_a_list_extended_in_a_loop_over_an_unknown_iterable_is_of_unknown_length():
    """`layers += [...]` extends the list in place (before: a new list, so in a loop over `cfg`
    unknown the list became unknown after one pass, and an alias never saw the items). After
    the loop it may hold any number of the layers the body adds: a stack of them is unknown
    when they change the shape (never the identity: the input's own shape would be a wrong
    claim), the input's shape when every one keeps it."""
    got = {v["line"]: v for v in _answer("cfgtable.py")["values"]}
    # convolutions of widths not known, any number: the batch only (a conv's lost widths are
    # sizes of their own, conv.py `size_or_fresh`), never the input's own shape
    assert got[51]["shape"] == ["x.shape[0]", "?", "?", "?"]
    assert got[60]["shape"] == ["x.shape[0]", "x.shape[1]"]  # activations only, any number
    assert got[69]["shape"] == ["x.shape[0]", 8, "x.shape[2] - 2", "x.shape[3] - 2"]  # through an alias


def test_settings_picked_by_string_methods_of_a_known_name():
    """`if arch.startswith(...)` / `elif arch.endswith(...)` on a name the factory passes: Python's
    own string methods on known strings decide the arm (before: every arm and the `raise` were
    joined, so the settings, and everything the model built from them computes, were unknown)."""
    got = _shapes(_answer("cfgtable.py"), "Net.forward")
    assert _built_by(got[13], "net_named") == ["x.shape[0]", 24, "x.shape[2]//2", "x.shape[3]//2"]
    assert _built_by(got[16], "net_named") == ["x.shape[0]", 10]


def _built_all(value, factory):
    """Every shape a line has in the model `factory` returns (one per part built alike)."""
    return [c["shape"] for c in value.get("contexts", []) if c["context"].split(":")[0] == factory]


def test_config_dataclasses_whose_subclasses_compute_their_fields():
    """A `@dataclass` base whose subclass's own `__init__` computes the fields (`widen(...)`, a
    staticmethod read through `self`) and hands them to `super().__init__(...)`, the generated
    `__init__`; the config lists made in a helper through `partial(Cfg, width=kwargs.pop(...))`,
    each block built by the class a config field holds (`c.block(c, drop, norm)`): the widths of
    every factory's model (before: the fields were never set, so nothing after the stem)."""
    got = _shapes(_answer("dcconfigs.py"), "Net.forward")
    assert _built_by(got[91], "net_wide") == ["x.shape[0]", 256, "(((x.shape[2] - 1)//2)//2)//2 + 1",
                                              "(((x.shape[3] - 1)//2)//2)//2 + 1"]
    assert _built_by(got[91], "net_plain")[1] == 128
    torch = pytest.importorskip("torch")
    mod = _module("dcconfigs")
    x = torch.randn(2, 3, 19, 14)
    for name in ("net_wide", "net_plain"):
        _check_against_torch(getattr(mod, name)().eval(), _built_by(got[91], name), x, lambda m, x: m.features(x))


def test_a_default_a_factorys_open_kwargs_may_replace_is_not_claimed():
    """`net_wide(**kwargs)` passes its keywords on to `Net(setting, **kwargs)`: `num_classes=10`
    is one value they may hold, so the head's width is the parameter (before: 10, wrong for
    `net_wide(num_classes=3)`)."""
    got = _shapes(_answer("dcconfigs.py"), "Net.forward")
    assert _built_by(got[94], "net_wide") == ["x.shape[0]", "num_classes"]
    torch = pytest.importorskip("torch")
    mod = _module("dcconfigs")
    out = mod.net_wide(num_classes=3).eval()(torch.randn(1, 3, 8, 8))
    assert list(out.shape) == [1, 3] and _dims(_built_by(got[94], "net_wide"), out, dict(num_classes=3))[1] == 3


def test_the_blocks_of_a_built_model_have_their_shapes_in_its_construction_context():
    """Each block a factory's model holds (its class's `forward` in this file) runs in that
    construction context on inputs in its own names, one run per group of blocks built alike:
    every block's lines list the shape of each (before: nothing, the blocks' own analysis has
    `cnf` and `norm` unknown). Each listed shape is what some block computes, and every block
    computes one of them."""
    answer = _answer("dcconfigs.py")
    assert [d for d in answer["diagnostics"] if d["severity"] == "error"] == []
    pytest.importorskip("torch")
    mod = _module("dcconfigs")
    for factory, cls, line in (("net_wide", mod.Wide, 59), ("net_plain", mod.Plain, 42)):
        _each_block_listed(answer, mod, factory, cls, line)


def _each_block_listed(answer, mod, factory, cls, line):
    """Every instance of `cls` in the model `factory` returns computes one of the shapes listed
    for `line` in that construction context (evaluated with the block's own input), and each
    listed shape is what some instance computes."""
    import torch
    listed = _built_all(_shapes(answer, f"{cls.__name__}.forward")[line], factory)
    model = getattr(mod, factory)().eval()
    seen, x = [], torch.randn(2, 3, 23, 17)
    blocks = [m for m in model.modules() if isinstance(m, cls)]
    hooks = [b.register_forward_hook(lambda m, i, o: seen.append((i[0], o))) for b in blocks]
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    assert len(seen) == len(blocks) > 2
    used = set()
    for inp, out in seen:
        fits = [i for i, s in enumerate(listed) if _dims(s, inp) == list(out.shape)]
        assert fits, (factory, list(inp.shape), list(out.shape), listed)
        used.update(fits)
    assert used == set(range(len(listed)))


def test_the_blocks_of_many_factories_models_are_each_listed_whole():
    """Twelve factories, ten blocks of distinct widths each: 120 shapes on one line, past the 64
    observations a line keeps and the 8 contexts it lists. A construction context is listed
    whole (its blocks' shapes, each once), or not at all: one block's shape missing from the
    list would be read as another's (before: the first 8 contexts, then nothing)."""
    answer = _answer("factories.py")
    listed = {c["context"].split(":")[0] for c in _shapes(answer, "Block.forward")[11]["contexts"]}
    # (with them, the contexts of `Net` built from widths not known: `_net`'s, the generic one)
    assert listed - {"_net", "Net.forward"} == {f"net_{k}" for k in range(1, 13)}
    pytest.importorskip("torch")
    mod = _module("factories")
    for k in (1, 7, 12):
        _each_block_listed(answer, mod, f"net_{k}", mod.Block, 11)


def test_classmethods_called_on_the_class_get_it_as_cls():
    """`SmallWeights.verify(weights)` (a classmethod of an Enum base) returns `None` for `None`,
    so `if weights is not None` is decided; `Widths.scaled(8, 2)` builds through `cls(...)`
    (before: `cls` took the first argument, both were unknown, and so was every line after the
    stem in the factory's model)."""
    got = _shapes(_answer("verified.py"), "Net.forward")
    assert _built_by(got[40], "net_small") == ["x.shape[0]", 16, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert _built_by(got[41], "net_small")[1] == 64
    assert got[43]["shape"] == ["x.shape[0]", "num_classes"] and _built_by_or_join(got[43], "net_small") == \
        ["x.shape[0]", "num_classes"]
    torch = pytest.importorskip("torch")
    mod = _module("verified")
    x = torch.randn(2, 3, 9, 12)
    _check_against_torch(mod.net_small(), _built_by(got[41], "net_small"), x, lambda m, x: m.head(m.stem(x)))


def _built_by_or_join(value, factory):
    """The shape in `factory`'s construction context, which is not listed when it is the join."""
    got = _built_all(value, factory)
    return got[0] if got else value["shape"]


def test_a_construction_context_some_of_whose_blocks_lose_a_line_lists_none_of_them_there():
    """The stride-1 blocks call a function the analysis cannot read: their `out` is unknown, the
    stride-2 blocks' is known. Listing the latter alone would give every block a halved shape
    (before: a wrong shape for the stride-1 blocks); the line lists no shape of that context."""
    got = {v["line"]: v for v in _answer("halfknown.py")["values"] if v["function"] == "Block.forward"}
    assert _built_all(got[16], "net_a") == [[ "x.shape[0]", 8, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"],
                                            ["x.shape[0]", 16, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]]
    assert 17 not in got or _built_all(got[17], "net_a") == []
