"""Dicts a function makes and keeps to itself (analysis/private_dicts.py): a block spec string
decoded into options (`options[key] = value` over its parts), then `'p' in options` picks the
default for a part the spec leaves out (issue 27: EfficientNet/MobileNet builders decode
`'ir_r1_k3_s2_e4_c24'`-style strings so).

Before, `'p' in options` was undecided for any dict the code built itself (a dict made
elsewhere may hold keys the analysis never saw), so the kernel size read `_ks(options['p']) if
'p' in options else 1` was unknown and so was every size after it. Now a dict literal that
never leaves the function — only read, tested and stored into under a key — holds exactly the
keys the analysis put there. A dict that escapes (returned, passed to a call, stored on an
object, aliased, closed over) decides nothing by absence, as before. Shapes checked against
torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import context_shape, value_at

PROGRAM = '''import re
import torch
from torch import nn


def _ks(s):
    return int(s)


def decode(spec):
    options = {}
    for op in spec.split("_"):
        if op == "noskip":
            continue
        parts = re.split(r"(\\d.*)", op)
        if len(parts) >= 2:
            key, value = parts[:2]
            options[key] = value
    k = _ks(options["k"])
    p = _ks(options["p"]) if "p" in options else 1
    return dict(out=int(options["c"]), k=k, p=p, s=int(options.get("s", 1)))


class Block(nn.Module):
    def __init__(self, cin, spec):
        super().__init__()
        a = decode(spec)
        self.dw = nn.Conv2d(cin, cin, a["k"], a["s"], a["k"] // 2, groups=cin)
        self.pw = nn.Conv2d(cin, a["out"], a["p"])

    def forward(self, x):
        x = self.dw(x)
        y = self.pw(x)
        return y


def small():
    return Block(8, "ir_k3_s2_c24_noskip")


def wide():
    return Block(8, "ir_k5_p3_c16")
'''

ESCAPES = '''import torch


def fill(d):
    d["p"] = "3"


def kept(cfg):
    return cfg


class Holder:
    def __init__(self):
        self.opts = {}

    def later(self):
        self.opts["p"] = "3"


def passed():
    options = {}
    fill(options)
    y1 = torch.zeros(3 if "p" in options else 1)
    return y1


def returned():
    options = {}
    kept(options)["p"] = "3"
    y2 = torch.zeros(3 if "p" in options else 1)
    return y2, options


def on_object(h: Holder):
    y3 = torch.zeros(3 if "p" in h.opts else 1)
    return y3


def aliased():
    options = {}
    other = options
    other["p"] = "3"
    y4 = torch.zeros(3 if "p" in options else 1)
    return y4


def closed_over():
    options = {}

    def put():
        options["p"] = "3"
    put()
    y5 = torch.zeros(3 if "p" in options else 1)
    return y5


def own():
    options = {}
    options["k"] = "3"
    y6 = torch.zeros(3 if "p" in options else 1)
    return y6
'''


def _values(text, path):
    return analyze_source(text, path).infer_json()["values"]


def _context(values, line, name, label):
    return context_shape(value_at(values, "Block.forward", line, name, required=True), label)


@pytest.mark.parametrize("factory, label", [("small", "small:38"), ("wide", "wide:42")])
def test_a_decoded_spec_leaves_out_a_part_and_its_default_is_taken(factory, label):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "privatedicts.py", "exec"), ns)
    net = ns[factory]().to("meta")
    x = torch.empty(2, 8, 17, 13, device="meta")
    seen = {32: net.dw(x)}
    seen[33] = net.pw(seen[32])
    values = _values(PROGRAM, "privatedicts.py")
    for line, name in ((32, "x"), (33, "y")):
        shape = _context(values, line, name, label)
        assert shape is not None and "?" not in shape, (factory, line, shape)
        got = [d if isinstance(d, int) else eval(d, {"x": x}) for d in shape]
        assert got == list(seen[line].shape), (factory, line, shape)


@pytest.mark.parametrize("name", ["y1", "y2", "y3", "y4", "y5"])
def test_a_dict_that_leaves_its_function_decides_nothing_by_absence(name):
    # in Python each of these holds "p" when the `in` runs (or may: `on_object` after `later()`),
    # so a claim of [1] would be wrong
    got = [v["shape"] for v in _values(ESCAPES, "escapes.py") if v["name"] == name]
    assert got and got[0] != [1], (name, got)


def test_a_dict_kept_to_its_function_decides_absence():
    got = [v["shape"] for v in _values(ESCAPES, "escapes.py") if v["name"] == "y6"]
    assert got == [[1]], got
