"""`torch.vmap` (analysis/vmaps.py): a call of the mapped function is the function on per-sample
arguments with the mapped axis put back at `out_dims`; maps nest (a mask function mapped over
its key, query, head and batch indices in turn, the way attention masks are built). Every shape
claimed is checked against torch running the same program on the meta device; what is not
exact (a mapped axis of a tensor of unknown rank that is not on a known edge) gives nothing."""
import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch


def le(b, h, q, k):
    return k <= q


def pair(x, y):
    return x * y, x.sum()


def mapped(fn, bh: bool = True):
    dimensions = [(None, None, None, 0), (None, None, 0, None)]
    if bh:
        dimensions.extend([(None, 0, None, None), (0, None, None, None)])
    for dims in dimensions:
        fn = torch.vmap(fn, in_dims=dims, out_dims=0)
    return fn


def masks(q, kv):
    assert q.shape == (5,) and kv.shape == (7,)
    b = torch.arange(2, device=q.device)
    h = torch.arange(1, device=q.device)
    m = mapped(le)(b, h, q, kv)
    m2 = torch.vmap(torch.vmap(le, in_dims=(None, None, None, 0)), in_dims=(None, None, 0, None))(b, h, q, kv)
    return m, m2


def rows(x, w):
    assert x.shape == (3, 4) and w.shape == (4, 6)
    y = torch.vmap(lambda r: r @ w)(x)
    a, s = torch.vmap(pair, in_dims=(0, None), out_dims=(1, 0))(x, w[:, 0])
    z = torch.vmap(torch.sum, in_dims=1)(x)
    t = torch.vmap(torch.outer, in_dims=(0, None), out_dims=-1)(x, w[0])
    return y, a, s, z, t


def lost(x, n: int):
    u = torch.vmap(torch.sum, in_dims=1)(x)
    v = torch.vmap(torch.sum, in_dims=0)(n)
    return u, v
'''

NAMES = {"masks": ("m", "m2"), "rows": ("y", "a", "s", "z", "t")}


def _values(function: str) -> dict:
    return {v["name"]: v["shape"] for v in analyze_source(SRC, "vm.py").infer_json()["values"]
            if v["function"] == function}


def test_nested_maps_build_a_batch_head_query_key_mask():
    got = _values("masks")
    assert got["m"] == [2, 1, 5, 7]
    assert got["m2"] == [5, 7]


def test_in_dims_and_out_dims_place_the_mapped_axis():
    got = _values("rows")
    assert got["y"] == [3, 6]
    assert got["a"] == [4, 3]  # out_dims=1 of a [4] per-sample result
    assert got["s"] == [3]
    assert got["z"] == [4]  # mapped over axis 1
    assert got["t"] == [4, 6, 3]  # out_dims=-1


def test_what_is_not_exact_gives_nothing():
    got = _values("lost")
    assert got.get("u") is None  # axis 1 of a tensor of unknown rank
    assert got.get("v") is None  # an int mapped: torch raises


def test_the_shapes_are_torchs():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "vm.py", "exec"), ns)
    meta = {"device": "meta"}
    m, m2 = ns["masks"](torch.arange(5, **meta), torch.arange(7, **meta))
    outs = dict(zip(NAMES["masks"], (m, m2)))
    outs.update(zip(NAMES["rows"], ns["rows"](torch.empty(3, 4, **meta), torch.empty(4, 6, **meta))))
    for function, names in NAMES.items():
        got = _values(function)
        for name in names:
            assert got[name] == list(outs[name].shape), name
