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


def _shapes(answer, function):
    return {v["line"]: v for v in answer["values"] if v["function"] == function and v["name"] in ("x", "y", "h")}


def _dims(shape, x):
    """The sizes a printed shape stands for with input `x` (None for a "?")."""
    return [None if d == "?" else d if isinstance(d, int) else eval(d, {"x": x, "max": max, "min": min})
            for d in shape]


def _check_against_torch(model, shape, x, upto):
    """`shape` (ShapeHint's, for the value of `model`'s forward after running `upto`) agrees with
    torch on every dim it claims."""
    import torch
    with torch.no_grad():
        got = list(upto(model, x).shape)
    claimed = _dims(shape, x)
    assert len(claimed) == len(got)
    for c, g in zip(claimed, got):
        assert c is None or c == g, (shape, got)


def test_stages_built_by_a_helper_method_from_a_block_class_argument():
    """`_stage(block, planes, blocks, stride)` appending `block(...)` in a loop, `block.expansion`,
    an optional downsample: the model a factory returns runs, so everything after the stages has a
    shape (before: nothing after the stem)."""
    got = _shapes(_answer("stages.py"), "Net.forward")
    assert got[48]["shape"] == ["x.shape[0]", "?", "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert got[49]["shape"] == ["x.shape[0]", "?", 1, 1]
    assert got[51]["shape"] == ["x.shape[0]", 10]
    # each factory's model is its own context: the widths its blocks give
    ctx = {c["context"]: c["shape"] for c in got[47]["contexts"]}
    assert [s[1] for s in ctx.values()] == [16, 32]
    assert any("net_small" in c for c in ctx) and any("net_wide" in c for c in ctx)


def test_stage_shapes_agree_with_torch():
    torch = pytest.importorskip("torch")
    import importlib.util
    spec = importlib.util.spec_from_file_location("stages", os.path.join(HERE, "stages.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = _shapes(_answer("stages.py"), "Net.forward")
    x = torch.randn(2, 3, 13, 10)
    for factory in (mod.net_small, mod.net_wide):
        model = factory().eval()
        for line, upto in ((48, lambda m, x: m.layer2(m.layer1(m.stem(x)))),
                           (51, lambda m, x: m(x))):
            _check_against_torch(model, got[line]["shape"], x, upto)
            ctx = [c["shape"] for c in got[line].get("contexts", []) if factory.__name__ in c["context"]]
            for shape in ctx:
                _check_against_torch(model, shape, x, upto)


def test_a_stack_of_unknown_depth_is_not_the_identity():
    """`Sequential(*[Conv2d(stride=2) for _ in range(depth)])` with `depth` unknown: the sides
    it halves an unknown number of times are unknown, never the input's."""
    got = _shapes(_answer("stages.py"), "Halving.forward")
    assert got[91]["shape"] == ["x.shape[0]", 8, "?", "?"]


def test_config_list_with_string_markers_builds_the_features():
    """`for v in cfg: if v == "M": ...` over `[8, "M", 16, "M"]`: an int never equals a string,
    so each item takes its own arm (before: both, and the features were unknown)."""
    got = _shapes(_answer("cfglist.py"), "Net.forward")
    assert got[33]["shape"] == ["x.shape[0]", 16, "(x.shape[2]//2)//2", "(x.shape[3]//2)//2"]
    assert got[36]["shape"] == ["x.shape[0]", 10]


def test_config_list_agrees_with_torch():
    torch = pytest.importorskip("torch")
    import importlib.util
    spec = importlib.util.spec_from_file_location("cfglist", os.path.join(HERE, "cfglist.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = _shapes(_answer("cfglist.py"), "Net.forward")
    x = torch.randn(1, 3, 19, 22)
    _check_against_torch(mod.net_a(), got[33]["shape"], x, lambda m, x: m.features(x))


def test_partial_norm_layers_and_settings_lists():
    """`norm_layer = partial(nn.BatchNorm2d, eps=...)` passed down (`if norm_layer is None:` is
    decided: a partial is not None), a Sequential subclass whose activation gets `**params` from
    `{} if inplace is None else {...}`, stages from a list of settings: the whole forward has
    shapes (before: only `self.features[0](x)`)."""
    got = _shapes(_answer("inverted.py"), "Net.forward")
    assert got[57]["shape"] == ["x.shape[0]", 64, "(((x.shape[2] - 1)//2)//2)//2 + 1",
                                "(((x.shape[3] - 1)//2)//2)//2 + 1"]
    assert got[60]["shape"] == ["x.shape[0]", 10]


def test_inverted_residual_stages_agree_with_torch():
    torch = pytest.importorskip("torch")
    import importlib.util
    spec = importlib.util.spec_from_file_location("inverted", os.path.join(HERE, "inverted.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = _shapes(_answer("inverted.py"), "Net.forward")
    x = torch.randn(2, 3, 33, 18)
    _check_against_torch(mod.Net().eval(), got[57]["shape"], x, lambda m, x: m.features(x))


# identifiers of libraries' model code: a mechanism that names one is not general (issue 27)
LIBRARY_IDENTIFIERS = {"_make_layer", "make_layers", "Conv2dNormActivation", "ConvNormActivation", "ACT2FN",
                       "ALL_ATTENTION_FUNCTIONS", "_efficientnet_conf", "InvertedResidual", "BasicBlock",
                       "Bottleneck", "MBConvConfig", "create_conv2d", "get_norm_act_layer", "_make_divisible"}


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
    assert got[24]["shape"][1] == 32 and got[25]["shape"][1] == 104
    assert [c["shape"][1] for c in got[24]["contexts"] if "narrow" in c["context"]] == [24]
    torch = pytest.importorskip("torch")
    import importlib.util
    spec = importlib.util.spec_from_file_location("rounding", os.path.join(HERE, "rounding.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = torch.randn(2, 3, 9, 9)
    _check_against_torch(mod.Net(), got[25]["shape"], x, lambda m, x: m.head(m.stem(x)))
    narrow = [c["shape"] for c in got[24]["contexts"] if "narrow" in c["context"]][0]
    _check_against_torch(mod.narrow(), narrow, x, lambda m, x: m.stem(x))
