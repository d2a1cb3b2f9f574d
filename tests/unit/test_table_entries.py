"""What a table of activations' entries need to be followed (issue 28, cause 5): an imported
module's own helper called at its top level with constants (`gelu = get_activation("gelu")`,
analysis/module_helpers.py), PReLU's single slope on a tensor of any rank, broadcasting with ones
on no more axes than a tensor surely has, and a table whose entries keep only the shapes of at
least one axis. Every shape claimed is checked against torch."""
import importlib
import os
import sys

import pytest

from shapehint.analysis.api import analyze_source

from .values import HERE, answer, program

torch = pytest.importorskip("torch")


def _values(name: str, function: str) -> dict:
    return {v["name"]: v["shape"] for v in answer(name)["values"] if v["function"] == function}


def _helper_answer() -> dict:
    path = os.path.join(HERE, "helperpkg", "use.py")
    with open(path) as f:
        return analyze_source(f.read(), path).infer_json()


def _helper_package():
    sys.path.insert(0, HERE)
    try:
        return importlib.import_module("helperpkg.use")
    finally:
        sys.path.remove(HERE)


def test_a_value_made_by_a_modules_own_helper_at_its_top_level_is_followed():
    values = {v["name"]: v["shape"] for v in _helper_answer()["values"] if v["function"] == "entry"}
    mod = _helper_package()
    x = torch.randn(2, 3, 5)
    claimed = ["x.shape[0]", "x.shape[1]", "x.shape[2]"]
    # `erf` itself, a layer of the table whose forward reads `erf`, and the table with a key not known
    assert values["a"] == values["b"] == values["c"] == claimed
    assert list(mod.erf(x).shape) == list(mod.ClippedErf()(x).shape) == list(x.shape)
    for kind in mod.TABLE:
        assert list(mod.TABLE[kind](x).shape) == list(x.shape), kind


def test_a_helper_given_something_else_than_constants_is_not_run():
    values = {v["name"]: v["shape"] for v in _helper_answer()["values"] if v["function"] == "entry"}
    assert values.get("d") is None  # (a value with no shape is not listed)


@pytest.mark.parametrize("rank", [0, 1, 2, 3, 4])
def test_one_slope_keeps_a_tensor_of_any_rank(rank, tmp_path):
    src = ("import torch\nfrom torch import nn\n\n"
           "def f(x: torch.Tensor):\n"
           "    y = nn.PReLU()(x)\n"
           "    z = nn.functional.prelu(x, torch.ones(1))\n"
           "    w = nn.PReLU(4)(x)\n"
           "    return y\n")
    values = {v["name"]: v["shape"] for v in analyze_source(src, str(tmp_path / "m.py")).infer_json()["values"]}
    assert values["y"] == values["z"] == ["*x"]
    assert values.get("w") is None  # four slopes need the channel axis: the rank matters
    x = torch.randn([4] * rank)
    assert list(torch.nn.PReLU()(x).shape) == list(torch.nn.functional.prelu(x, torch.ones(1)).shape) == list(x.shape)


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_ones_on_no_more_axes_than_a_tensor_surely_has_leave_it_as_it_is(rank, tmp_path):
    src = ("import torch\n\n"
           "def f(x: torch.Tensor):\n"
           "    z = x.unsqueeze(0)\n"
           "    a = torch.ones(1) * z\n"
           "    b = z + torch.ones(1, 1)\n"
           "    c = torch.ones(1) * x\n"
           "    return a\n")
    values = {v["name"]: v["shape"] for v in analyze_source(src, str(tmp_path / "m.py")).infer_json()["values"]}
    assert values["a"] == [1, "*x"]
    # two axes of ones may be more than z has (x a scalar: [1] + [1, 1] is [1, 1]); x may have none:
    # a tensor, no axis claimed (ops/common.trailing_broadcast)
    assert values.get("b") == values.get("c") == ["*?"]
    x = torch.randn([3] * rank)
    z = x.unsqueeze(0)
    assert list((torch.ones(1) * z).shape) == [1] + list(x.shape)
    if rank == 0:
        assert list((z + torch.ones(1, 1)).shape) == [1, 1] and list((torch.ones(1) * x).shape) == [1]


def test_a_table_whose_entries_keep_shapes_of_at_least_one_axis():
    mod = program("one_axis")
    assert _values("one_axis", "tokens")["y"] == ["x.shape[0]", "x.shape[1]", "x.shape[2]"]
    assert _values("one_axis", "lifted")["y"] == [1, "*x"]
    # x may be a scalar, which `Scaled` turns into a tensor of one axis: no shape is claimed
    assert _values("one_axis", "anything").get("y") is None
    assert list(mod.anything(torch.tensor(2.0), "scaled").shape) == [1]
    for kind in mod.ACTS:
        for shape in ([2, 3, 4], [5], [2, 1, 3]):
            x = torch.randn(*shape)
            if len(shape) == 3:
                assert list(mod.tokens(x, kind).shape) == shape, kind
            assert list(mod.lifted(x, kind).shape) == [1] + shape, kind


def test_a_registry_the_program_can_extend_leaves_the_fallbacks_shape_unclaimed(tmp_path):
    # `fn = fallback; if impl != "eager": fn = REGISTRY[impl]` where the registry is a mapping
    # class others may add to (an instance's own dict filled by `__setitem__`): a candidate the
    # analysis cannot see may return anything, so the fallback's shape is not the join's
    src = (
        "import torch\nfrom collections.abc import MutableMapping\n\n"
        "def eager(q):\n    return q.transpose(1, 2)\n\n"
        "def fused(q):\n    return q.transpose(1, 2).contiguous()\n\n"
        "class Interface(MutableMapping):\n"
        "    _global = {'fused': fused}\n\n"
        "    def __init__(self):\n        self._local = {}\n\n"
        "    def __getitem__(self, key):\n"
        "        if key in self._local:\n            return self._local[key]\n"
        "        return self._global[key]\n\n"
        "    def __setitem__(self, key, value):\n        self._local[key] = value\n\n"
        "    def __delitem__(self, key):\n        del self._local[key]\n\n"
        "    def __iter__(self):\n        return iter({**self._global, **self._local})\n\n"
        "    def __len__(self):\n        return len(self._global) + len(self._local)\n\n"
        "FUNCTIONS = Interface()\n"
        "CLOSED = {'fused': fused}\n\n"
        "def f(q: torch.Tensor, impl: str):\n"
        "    assert q.dim() == 4\n"
        "    fn = eager\n"
        "    if impl != 'eager':\n        fn = FUNCTIONS[impl]\n"
        "    a = fn(q)\n"
        "    gn = eager\n"
        "    if impl != 'eager':\n        gn = CLOSED[impl]\n"
        "    b = gn(q)\n"
        "    return a, b\n")
    values = {v["name"]: v["shape"] for v in analyze_source(src, str(tmp_path / "m.py")).infer_json()["values"]}
    assert values.get("a") is None
    # a closed dict whose every value is followed and agrees: that is the shape
    assert values["b"] == ["q.shape[0]", "q.shape[2]", "q.shape[1]", "q.shape[3]"]
