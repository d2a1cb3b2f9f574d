"""A function whose own analysis leaves its rank open (`[*x, H', W', 4*C]`: it reads its input
from the end only) shows what its calls agree on where every call has a known rank and gives the
segment's axes the same own names (analysis/segment_fill.py).

The blocks are reached only through a Sequential built in a loop of unknown count, so no call
site passes them a tensor of known sizes; the calls still agree that the segment is the
argument's first axis. Programs are our own; every claimed size is evaluated against torch for
every call the model makes, in two configurations."""
import torch

from shapehint.analysis.api import analyze_source

SRC = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


def merge(x):
    H, W, _ = x.shape[-3:]
    x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
    x0 = x[..., 0::2, 0::2, :]
    x1 = x[..., 1::2, 1::2, :]
    y = torch.cat([x0, x1], -1)
    return y


class Merge(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(2 * dim)
        self.red = nn.Linear(2 * dim, 2 * dim)

    def forward(self, x):
        z = merge(x)
        z = self.norm(z)
        z = self.red(z)
        return z


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = x + self.fc(self.norm(x))
        return h


class Perm(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return torch.permute(x, self.dims)


class Net(nn.Module):
    def __init__(self, embed_dim, depths):
        super().__init__()
        layers = [nn.Sequential(nn.Conv2d(3, embed_dim, 4, 4), Perm([0, 2, 3, 1]))]
        for i in range(len(depths)):
            dim = embed_dim * 2**i
            layers.append(nn.Sequential(*[Block(dim) for _ in range(depths[i])]))
            if i < len(depths) - 1:
                layers.append(Merge(dim))
        self.features = nn.Sequential(*layers)

    def forward(self, x):
        return self.features(x)
"""


def _values(src):
    return {(v["line"], v["name"]): v for v in analyze_source(src, "m.py").infer_json()["values"]}


def _calls(depths, size):
    """(callee, its argument) for every call of `merge`, `Merge.forward` and `Block.forward`."""
    ns = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    seen = []
    inner = ns["merge"]
    ns["merge"] = lambda x: (seen.append(("merge", x)), inner(x))[1]
    net = ns["Net"](8, depths).to("meta")
    for m in net.modules():
        if type(m).__name__ in ("Merge", "Block"):
            m.register_forward_pre_hook(lambda mod, a: seen.append((type(mod).__name__, a[0])))
    net(torch.empty(2, 3, size, size, device="meta"))
    return seen


def _check(dims, x, observed, own):
    assert len(dims) == len(observed), (dims, observed)
    names = {"x": x, "H": x.shape[-3], "W": x.shape[-2], **own}
    for d, o in zip(dims, observed):
        assert d != "?" and not str(d).startswith("*"), dims
        assert (d if isinstance(d, int) else eval(d, {}, names)) == o, (dims, observed)


def test_a_segment_every_call_gives_the_same_axes_is_those_axes():
    vals = _values(SRC)
    assert vals[(11, "y")]["shape"] == ["x.shape[0]", "(H + H%2 - 1)//2 + 1", "(W + W%2 - 1)//2 + 1",
                                        "2*x.shape[-1]"]
    assert vals[(8, "x")]["shape"][0] == "x.shape[0]"
    for depths, size in (((1, 1), 32), ((2, 1, 1), 36), ((1, 2, 1, 1), 64)):
        for who, x in _calls(depths, size):
            if who == "merge":
                xp = torch.nn.functional.pad(x, (0, 0, 0, x.shape[-2] % 2, 0, x.shape[-3] % 2))
                y = torch.cat([xp[..., 0::2, 0::2, :], xp[..., 1::2, 1::2, :]], -1)
                _check(vals[(8, "x")]["shape"], x, list(xp.shape), {})
                _check(vals[(11, "y")]["shape"], x, list(y.shape), {})
            elif who == "Merge":
                dim = x.shape[-1]
                h, w = (x.shape[-3] + 1) // 2, (x.shape[-2] + 1) // 2
                _check(vals[(24, "z")]["shape"], x, [x.shape[0], h, w, 2 * dim], {"dim": dim})
            else:
                _check(vals[(35, "h")]["shape"], x, list(x.shape), {"dim": x.shape[-1]})


def test_calls_of_other_ranks_leave_the_segment():
    src = SRC.replace("        return self.features(x)\n",
                      "        y = self.features(x)\n        return merge(y[0])\n")
    shape = _values(src)[(11, "y")]["shape"]
    assert shape[0] == "*x", shape  # rank 4 from the container, rank 3 here
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    out = ns["Net"](8, (1, 1)).to("meta")(torch.empty(2, 3, 32, 32, device="meta"))
    assert out.dim() == 3


def test_a_function_no_call_reaches_keeps_its_segment():
    src = SRC.split("class Merge")[0]
    assert _values(src)[(11, "y")]["shape"] == ["*x", "(H + H%2 - 1)//2 + 1", "(W + W%2 - 1)//2 + 1",
                                                "2*x.shape[-1]"]


V2 = """

class Merge2(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.red = nn.Linear(2 * dim, 2 * dim)

    def forward(self, x):
        z = merge(x)
        z = self.red(z)
        return z
"""
SRC_V2 = SRC.replace("\n\nclass Block", V2 + "\n\nclass Block")


def _contexts(src, key):
    v = _values(src)[key]
    return v["shape"], [(c["context"], c["shape"]) for c in v.get("contexts", []) if "via" not in c]


def test_a_filled_callers_own_call_is_filled_alike():
    # Merge2 is never built: its call passes a segment of any rank on, so `merge`'s own shape
    # keeps it; Merge's every call has rank 4, so its own call of `merge` gives rank 4 too
    # (a factory's construction context is no evidence for the fill, nor filled by it)
    src = SRC_V2 + "\n\ndef net_tiny(**kwargs):\n    return Net(8, (1, 1), **kwargs)\n"
    own, ctxs = _contexts(src, (11, "y"))
    assert own[0] == "*x", own
    by_label = dict(ctxs)
    assert by_label["Merge2.forward:34"][0] == "*x", ctxs
    assert by_label["net_tiny:75"][0] == "*x", ctxs
    filled = by_label["Merge.forward:22"]
    assert filled == ["x.shape[0]", "(x.shape[-3] + x.shape[-3]%2 - 1)//2 + 1",
                      "(x.shape[-2] + x.shape[-2]%2 - 1)//2 + 1", "2*x.shape[-1]"], filled
    pad = dict(_contexts(src, (8, "x"))[1])["Merge.forward:22"]
    for depths, size in (((1, 1), 32), ((2, 1, 1), 36), ((1, 2, 1, 1), 64)):
        for who, x in _calls(depths, size):
            if who == "Merge":  # (the argument `merge` gets from Merge.forward, in its names)
                xp = torch.nn.functional.pad(x, (0, 0, 0, x.shape[-2] % 2, 0, x.shape[-3] % 2))
                y = torch.cat([xp[..., 0::2, 0::2, :], xp[..., 1::2, 1::2, :]], -1)
                _check(pad, x, list(xp.shape), {})
                _check(filled, x, list(y.shape), {})


def test_a_caller_left_open_leaves_its_calls_contexts_open():
    # Merge.forward also called with a rank-3 tensor: its own shapes keep the segment, and so
    # does the context of its call of `merge`
    src = SRC_V2.replace("        return self.features(x)\n",
                         "        y = self.features(x)\n        return self.tail(y[0])\n").replace(
        "        self.features = nn.Sequential(*layers)\n",
        "        self.features = nn.Sequential(*layers)\n        self.tail = Merge(embed_dim * 2 ** (len(depths) - 1))\n")
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    out = ns["Net"](8, (1, 1)).to("meta")(torch.empty(2, 3, 32, 32, device="meta"))
    assert out.dim() == 3
    assert _values(src)[(22, "z")]["shape"][0] == "*x"
    _, ctxs = _contexts(src, (11, "y"))
    assert ctxs and all(s[0] == "*x" for _, s in ctxs), ctxs


def test_a_call_before_an_early_return_is_not_filled_by_the_lines_after_it():
    # Merge3's calls with `flat` return at its first call of `merge`, with rank 3: its records
    # after that line see only the rank-4 calls (filled), the first call's context stays open
    src = SRC.replace("\n\nclass Block", """

class Merge3(nn.Module):
    def forward(self, x, flat: bool = False):
        if flat:
            return merge(x)
        z = merge(x)
        z = z * 2
        return z
""" + "\n\nclass Block").replace("        return self.features(x)\n", """        y = self.features(x)
        y = self.m3(y)
        return self.m3(y[0], True)
""").replace("        self.features = nn.Sequential(*layers)\n",
             "        self.features = nn.Sequential(*layers)\n        self.m3 = Merge3()\n")
    lines = src.splitlines()
    early = next(i for i, t in enumerate(lines, 1) if t.strip() == "return merge(x)")
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    assert ns["Net"](8, (1, 1)).to("meta")(torch.empty(2, 3, 32, 32, device="meta")).dim() == 3
    seen = []
    inner = ns["merge"]
    ns["merge"] = lambda x: (seen.append(x.dim()), inner(x))[1]
    ns["Net"](8, (1, 1)).to("meta")(torch.empty(2, 3, 32, 32, device="meta"))
    assert seen[-1] == 3  # (the flat call's `merge` gets rank 3)
    vals = _values(src)
    assert vals[(early + 1, "z")]["shape"][0] == "x.shape[0]", vals[(early + 1, "z")]
    _, ctxs = _contexts(src, (11, "y"))
    got = [s for lbl, s in ctxs if lbl == f"Merge3.forward:{early}"]
    assert got and all(len(s) == 3 or s[0] == "*x" for s in got), ctxs
