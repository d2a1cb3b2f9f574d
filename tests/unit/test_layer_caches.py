"""A cache of per-layer state built the way a decoder's cache is: a list of layers filled from a
configuration (or left empty, a layer class kept to make them later), a base constructor given
one or the other, and an `update` that appends to the layer's keys.

- A class that is None on some paths is held (maybe_none.py): `if cls is not None: cls()` builds it.
- `obj.attr is (not) None` on an attribute that is None on some paths reads it as what it is on
  each arm (maybe_none.py): the base's `self.make`, given on one path only.
- Two lists bound in the arms, one of unknown length, join to a list of unknown length whose item
  is one of theirs (arm_lists.joined); it was unknown, and with it every layer read from it.
- An instance read as the item of such a list stands for several (many_items.py): the state one
  layer's `update` wrote is not another layer's (it claimed twice the keys' length).

Every shape claimed is checked against torch on the meta device."""
import torch

from shapehint.analysis.api import analyze_source

from .program_runs import run

LAYERS = """import torch


class Layer:
    def __init__(self):
        self.ready = False

    def update(self, k):
        if not self.ready:
            self.keys = torch.zeros(0, device=k.device)
            self.ready = True
        self.keys = torch.cat([self.keys, k], dim=-2)
        return self.keys


class Base:
    def __init__(self, layers=None, make=None):
        self.layers = layers if layers is not None else []
        self.make = make

    def update(self, k, idx):
        if self.make is not None:
            while len(self.layers) <= idx:
                self.layers.append(self.make())
        return self.layers[idx].update(k)


class Cache(Base):
    def __init__(self, config=None):
        layers = []
        if config is not None:
            for kind in config.kinds:
                layers.append(Layer())
        if len(layers) == 0:
            super().__init__(make=Layer)
        else:
            super().__init__(layers=layers)
"""

CACHE = LAYERS + """

def f(x: torch.Tensor, config):
    k = x.view(2, 4, 16, 8)
    cache = Cache(config)
    out = cache.update(k, 0)
    return out
"""

CLASS_OR_NONE = """import torch


class Half:
    def f(self, x):
        return x.sum(0)


def g(x: torch.Tensor, flag: bool):
    y = x.view(6, 5)
    if flag:
        make = Half
    else:
        make = None
    if make is not None:
        a = make().f(y)
    else:
        b = y
    return y
"""

TWO_LAYERS = LAYERS + """

def two(x: torch.Tensor, config):
    k = x.view(2, 4, 16, 8)
    cache = Cache(config)
    k0 = cache.layers[0].update(k)
    k1 = cache.layers[1].update(k)
    return k0, k1
"""


class Config:
    kinds = ["full", "full"]


def _shapes(text, function):
    r = analyze_source(text, "m.py")
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == function}


def _real(text, function, *args):
    with torch.device("meta"):
        out = run(text)[function](torch.zeros(2 * 4 * 16 * 8), *args)
    return [list(t.shape) for t in (out if isinstance(out, tuple) else (out,))]


def _agrees(got, want) -> bool:
    """`got` claims nothing `want` contradicts (`?` claims nothing, `*?` not even the rank)."""
    return got == ["*?"] or len(got) == len(want) and all(g == "?" or g == w for g, w in zip(got, want))


def test_a_cache_built_from_a_configuration_or_empty_gives_a_tensor():
    # (each of the three mechanisms is needed: without the attribute's narrowing, the list join or
    # the class held where it may be None, `out` is unknown)
    want = _real(CACHE, "f", Config())[0]
    assert want == _real(CACHE, "f", None)[0] == [2, 4, 16, 8]
    got = _shapes(CACHE, "f").get("out")
    assert got is not None and _agrees(got, want)  # a tensor (its layer stands for several: no length claimed)


def test_a_class_none_on_some_paths_is_built_where_the_test_says_it_is_there():
    with torch.device("meta"):
        want = list(run(CLASS_OR_NONE.replace("return y", "return a"))["g"](torch.zeros(30), True).shape)
    assert _shapes(CLASS_OR_NONE, "g").get("a") == want == [5]


def test_layers_read_from_a_list_of_unknown_length_do_not_share_their_state():
    want0, want1 = _real(TWO_LAYERS, "two", Config())
    assert want0 == want1 == [2, 4, 16, 8]
    got = _shapes(TWO_LAYERS, "two")
    assert got.get("k0") is not None and _agrees(got["k0"], want0)
    assert got.get("k1") is not None and _agrees(got["k1"], want1)  # never [2, 4, 32, 8]: the second layer's keys are its own
