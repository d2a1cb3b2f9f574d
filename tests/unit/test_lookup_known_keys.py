"""A mapping class keeping its entries in a class-level dict behind an instance dict of local
overrides, read with a key the analysis knows (`FUNCS["pooled"]`, tables.any_lookup): its own
`__getitem__` runs on that key, as Python does, so the call gives that entry's shape, each key
its own. A registry the program can extend (a `register` class method, a `__setitem__`) reads its
entry too, under the stated assumption that registries gain new keys and are not overwritten
under the ones they are built with (registry_keys.py): registrations under a computed key do not
refuse it; code that writes that same literal key elsewhere does (a registration in a function,
a store into the instance, a top-level write over a key the class's literal holds). Every shape
claimed is checked against torch."""
import importlib.util

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''
import torch


def pooled(x):
    return x.mean(dim=1)


def plain(x):
    return x.transpose(1, 2)


class Functions:
    _global_mapping = {"pooled": pooled, "plain": plain}

    def __init__(self):
        self._local_mapping = {}

    def __getitem__(self, key):
        if key in self._local_mapping:
            return self._local_mapping[key]
        return self._global_mapping[key]


class OpenFunctions(Functions):
    _global_mapping = {"pooled": pooled, "plain": plain}

    def __setitem__(self, key, value):
        self._local_mapping.update({key: value})

    @classmethod
    def register(cls, key, fn):
        cls._global_mapping.update({key: fn})


class Swapped(OpenFunctions):
    _global_mapping = {"first": pooled, "second": plain}


class Local(OpenFunctions):
    _global_mapping = {"third": pooled}


class Over(OpenFunctions):
    _global_mapping = {"fourth": pooled}


FUNCS = Functions()
OPEN = OpenFunctions()
SWAPPED = Swapped()
LOCAL = Local()
OVER = Over()
OVER["fourth"] = plain


def add(name, fn):
    OpenFunctions.register(name, fn)
    OPEN[name] = fn


def swap():
    Swapped.register("second", pooled)


def put():
    LOCAL["third"] = plain


def by_pooled(x: torch.Tensor):
    assert x.dim() == 3
    a = FUNCS["pooled"](x)
    return a


def by_plain(x: torch.Tensor):
    assert x.dim() == 3
    b = FUNCS["plain"](x)
    return b


def by_open(x: torch.Tensor):
    assert x.dim() == 3
    c = OPEN["plain"](x)
    return c


def by_open_pooled(x: torch.Tensor):
    assert x.dim() == 3
    d = OPEN["pooled"](x)
    return d


def by_kept(x: torch.Tensor):
    assert x.dim() == 3
    e = SWAPPED["first"](x)
    return e


def by_swapped(x: torch.Tensor):
    assert x.dim() == 3
    s = x * 2
    f = SWAPPED["second"](x)
    return f


def by_put(x: torch.Tensor):
    assert x.dim() == 3
    s = x * 2
    g = LOCAL["third"](x)
    return g


def by_over(x: torch.Tensor):
    assert x.dim() == 3
    s = x * 2
    h = OVER["fourth"](x)
    return h
'''


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    path = tmp_path_factory.mktemp("known_keys") / "known_keys.py"
    path.write_text(SRC)
    values = {(v["function"], v["name"]): v["shape"] for v in analyze_source(SRC, str(path)).infer_json()["values"]}
    spec = importlib.util.spec_from_file_location("known_keys", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return values, mod


@pytest.mark.parametrize("function,name", [("by_pooled", "a"), ("by_plain", "b"), ("by_open", "c"),
                                           ("by_open_pooled", "d"), ("by_kept", "e")])
def test_a_known_key_reads_its_own_entry(analysed, function, name):
    import torch
    values, mod = analysed
    claimed = values.get((function, name))
    assert claimed is not None, f"{function}: no shape"
    for shape in [(2, 7, 5), (3, 1, 4)]:
        x = torch.empty(shape, device="meta")
        got = getattr(mod, function)(x)
        assert [eval(s, {"x": x}) if isinstance(s, str) else s for s in claimed] == list(got.shape), (function, shape)


@pytest.mark.parametrize("function,name", [("by_swapped", "f"), ("by_put", "g"), ("by_over", "h")])
def test_a_key_written_again_gives_none(analysed, function, name):
    values, mod = analysed
    assert values.get((function, "s")) is not None, f"{function}: not analysed"
    assert values.get((function, name)) is None


def test_the_rewrites_do_change_the_entry(analysed):
    """What the refused reads would have claimed is wrong once the rewrite ran."""
    import torch
    _, mod = analysed
    x = torch.empty((2, 7, 5), device="meta")
    assert list(mod.SWAPPED["second"](x).shape) == [2, 5, 7]
    mod.swap()
    mod.put()
    assert list(mod.SWAPPED["second"](x).shape) == [2, 5]
    assert list(mod.LOCAL["third"](x).shape) == [2, 5, 7]
    assert list(mod.OVER["fourth"](x).shape) == [2, 5, 7]
