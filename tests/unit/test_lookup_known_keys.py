"""A mapping class keeping its entries in a class-level dict behind an instance dict of local
overrides, read with a key the analysis knows (`FUNCS["pooled"]`, tables.any_lookup): its own
`__getitem__` runs on that key, as Python does, so the call gives that entry's shape, each key
its own. A class the program can extend (a class method registering entries) gives none: code the
analysis does not see may have replaced the entry. Every shape claimed is checked against torch."""
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

    @classmethod
    def register(cls, key, fn):
        cls._global_mapping[key] = fn


FUNCS = Functions()
OPEN = OpenFunctions()


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


@pytest.mark.parametrize("function,name", [("by_pooled", "a"), ("by_plain", "b")])
def test_a_known_key_reads_its_own_entry(analysed, function, name):
    import torch
    values, mod = analysed
    claimed = values.get((function, name))
    assert claimed is not None, f"{function}: no shape"
    for shape in [(2, 7, 5), (3, 1, 4)]:
        x = torch.empty(shape, device="meta")
        got = getattr(mod, function)(x)
        assert [eval(s, {"x": x}) if isinstance(s, str) else s for s in claimed] == list(got.shape), (function, shape)


def test_a_registry_the_program_can_extend_gives_none(analysed):
    values, _ = analysed
    assert values.get(("by_open", "c")) is None
