"""What an encoder-decoder's forward reads of its encoder and of its cache, in small programs.

- `tuple(v for v in [h, extra] if v is not None)` keeps `h` first on every path when the filter
  surely keeps it (comprehensions.py, ListV.head): `tuple(...)` of it is an open tuple whose
  head is `(h,)` (open_tuples.of_list). A list comprehension is not: it may be reordered.
- A result that is that tuple under a flag and an output object otherwise (tuple_or_output.py):
  `out[0]` reads each, joined where every option gives a value.
- An attribute read of an object that may be None (maybe_none.read_through): None has no such
  attribute, so the path that gets on had the object.
- `isinstance(cache, C)` on an object that may be None (kind_narrowing.py): the false arm of an
  object that surely is a C is None; of a choice, those that may not be a C.
- A method reads back what it wrote through its receiver (many_items.read), even when the
  receiver stands for several objects; not through another name, nor once the name is rebound.

Every shape claimed is checked against torch on the meta device."""
import torch

from shapehint.analysis.api import analyze_source

from .program_runs import run

OUTPUTS = """from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import torch


class Output(OrderedDict):
    def __post_init__(self):
        for name in ("hidden", "extra"):
            v = getattr(self, name)
            if v is not None:
                self[name] = v

    def __getitem__(self, k):
        if isinstance(k, str):
            return super().__getitem__(k)
        return list(self.values())[k]


@dataclass
class EncoderOutput(Output):
    hidden: Optional[torch.Tensor] = None
    extra: Optional[torch.Tensor] = None


def encode(x, extra=None, as_tuple=None):
    h = x * 2
    if as_tuple:
        return tuple(v for v in [h, extra] if v is not None)
    return EncoderOutput(hidden=h, extra=extra)


def encode_late(x, extra=None, as_tuple=None):
    h = x * 2
    if as_tuple:
        return tuple(v for v in [extra, h] if v is not None)
    return EncoderOutput(hidden=h, extra=extra)


def f(x: torch.Tensor, e: Optional[torch.Tensor], as_tuple: bool):
    y = x.view(2, 5, 8)
    out = encode(y, e, as_tuple)
    first = out[0]
    late = encode_late(y, e, as_tuple)
    unsure = late[0]
    pair = tuple(v for v in [y, e] if v is not None)
    head = pair[0]
    items = [v for v in [y, e] if v is not None]
    items.insert(0, y.sum(0))
    moved = tuple(items)[0]
    return first
"""

CACHES = """import torch


class Layer:
    def __init__(self):
        self.keys = torch.zeros(0)

    def update(self, k):
        self.keys = torch.cat([self.keys, k], dim=-2)
        return self.keys

    def peek(self, other, k):
        self.keys = torch.cat([self.keys, k], dim=-2)
        return other.keys

    def swap(self, other, k):
        self.keys = torch.cat([self.keys, k], dim=-2)
        self = other
        return self.keys


class Pair:
    def __init__(self, first, second):
        self.first = first
        self.second = second


class Grow:
    def __init__(self, times):
        self.times = times

    def grow(self, x):
        return x.repeat(1, self.times)


def r(x: torch.Tensor, config):
    k = x.view(2, 4, 16, 8)
    layers = [Layer() for _ in config.kinds]
    a = layers[0].update(k)
    b = layers[1].update(k)
    c = layers[0].peek(layers[1], k)
    d = layers[0].swap(layers[1], k)
    return a, b, c, d


def g(x: torch.Tensor, use: bool, pair: bool):
    y = x.view(3, 4)
    cache = None
    if use:
        cache = Pair(Grow(2), Grow(3)) if pair else Grow(2)
    if isinstance(cache, Pair):
        current = cache.first
    else:
        current = cache
    z = y
    if cache is not None:
        grown = current.grow(y)
        z = grown
    return z
"""


class Config:
    kinds = ["full", "full"]


def _shapes(text, function):
    r = analyze_source(text, "m.py")
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == function}


def _agrees(got, want) -> bool:
    """`got` claims nothing `want` contradicts (`?` claims nothing, `*?` not even the rank)."""
    return got == ["*?"] or len(got) == len(want) and all(g == "?" or g == w for g, w in zip(got, want))


def _outputs(name, e, as_tuple):
    program = OUTPUTS.replace("return first", f"return {name}")
    with torch.device("meta"):
        return list(run(program)["f"](torch.zeros(80), e, as_tuple).shape)


def test_the_first_item_of_a_tuple_or_an_output_object_is_read_from_each():
    with torch.device("meta"):
        e = torch.zeros(2, 5, 3)
    wants = [_outputs("first", arg, flag) for arg in (None, e) for flag in (True, False)]
    assert wants == [[2, 5, 8]] * 4
    assert _shapes(OUTPUTS, "f").get("first") == [2, 5, 8]


def test_an_item_a_filter_may_drop_before_it_is_not_claimed():
    with torch.device("meta"):
        e = torch.zeros(2, 5, 3)
    assert _outputs("unsure", e, True) == [2, 5, 3] and _outputs("unsure", None, True) == [2, 5, 8]
    assert _shapes(OUTPUTS, "f").get("unsure") is None


def test_a_generator_keeps_the_items_it_surely_keeps_first():
    assert _outputs("head", None, True) == [2, 5, 8]
    assert _shapes(OUTPUTS, "f").get("head") == [2, 5, 8]


def test_a_filtered_list_may_be_reordered_so_its_first_item_is_not_claimed():
    assert _outputs("moved", None, True) == [5, 8]
    got = _shapes(OUTPUTS, "f").get("moved")
    assert got is None or _agrees(got, [5, 8])


def _caches(name, *args):
    program = CACHES.replace("return a, b, c, d", f"return {name}").replace("return z", f"return {name}")
    fn = "r" if name in "abcd" else "g"
    with torch.device("meta"):
        return list(run(program)[fn](torch.zeros(2 * 4 * 16 * 8 if fn == "r" else 12), *args).shape)


def test_a_method_reads_back_what_it_wrote_through_its_receiver():
    want_a, want_b = _caches("a", Config()), _caches("b", Config())
    assert want_a == want_b == [2, 4, 16, 8]
    got = _shapes(CACHES, "r")
    assert got.get("a") == want_a  # the layer's own keys, not their join with the other layers'
    assert got.get("b") is not None and _agrees(got["b"], want_b)  # never [2, 4, 32, 8]


def test_another_name_or_a_rebound_receiver_reads_the_joined_state():
    want_c, want_d = _caches("c", Config()), _caches("d", Config())
    assert want_c == want_d == [2, 4, 16, 8]  # the second layer's keys, written once
    got = _shapes(CACHES, "r")
    for name, want in (("c", want_c), ("d", want_d)):
        assert got.get(name) is None or _agrees(got[name], want)
        assert got.get(name) != [2, 4, 32, 8]


def test_an_object_that_may_be_none_is_read_and_narrowed_by_its_class():
    wants = {_caches("z", True, True)[1], _caches("z", True, False)[1]}
    assert wants == {8} and _caches("z", False, False) == [3, 4]
    got = _shapes(CACHES, "g")
    assert got.get("grown") == [3, 8]  # both objects it may be grow by 2 (reading it was unknown)
