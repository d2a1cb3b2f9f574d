"""Registries (issue 28, cause 5): a dict of layer classes or functions read with a key the
analysis does not know is one of its values; a call follows each, and a shape is claimed only
where they agree. The program is tests/unit/values/registries.py; every shape claimed is
evaluated against torch for each key of each registry."""
import itertools

import pytest

from shapehint.analysis.api import analyze_source

from .values import answer, program


def _answer():
    return answer("registries")


def _values(function="Block.forward"):
    return {v["name"]: v for v in _answer()["values"] if v["function"] == function}


def _claimed(shape, x, d):
    B, T, C = x.shape
    return [None if s == "?" else s if isinstance(s, int) else eval(s, {"B": B, "T": T, "C": C, "d": d})
            for s in shape]


@pytest.mark.parametrize("name", ["a", "b", "o", "p"])
def test_the_options_of_a_registry_agree_so_the_shape_is_theirs(name):
    shape = _values()[name]["shape"]
    assert shape is not None and "?" not in shape and not any(str(s).startswith("*") for s in shape), shape
    import torch
    mod = program("registries")
    x = torch.randn(3, 5, 16)
    keys = itertools.product(mod.ACTIVATIONS, mod.ACTIVATION_FUNCTIONS, list(mod.ATTENTION) + ["unknown"], mod.POOLS)
    for act, fn, impl, pool in keys:
        model = mod.Block(16, act, fn, impl, pool, "keep")
        with torch.no_grad():
            got = list(mod.upto(model, x, name).shape)
        assert _claimed(shape, x, 16) == got, (act, fn, impl, pool)


def test_options_that_disagree_give_no_shape():
    # Keep gives [B, T, C], Pool [B, C]: no rank is claimed, only the axes both share
    # (analysis/rank_joins.py), and those hold for every head, by torch
    shape = _values().get("y", {}).get("shape")
    if shape is None:
        return
    stars = [i for i, s in enumerate(shape) if str(s).startswith("*")]
    assert len(stars) == 1, shape
    front, back = shape[:stars[0]], shape[stars[0] + 1:]
    import torch
    mod = program("registries")
    x = torch.randn(3, 5, 16)
    for head in mod.HEADS:
        model = mod.Block(16, "relu", "gelu", "eager", "mean", head)
        with torch.no_grad():
            got = list(mod.upto(model, x, "y").shape)
        assert len(front) + len(back) <= len(got), (head, shape, got)
        ends = got[:len(front)] + (got[len(got) - len(back):] if back else [])
        assert _claimed(front + back, x, 16) == [None if str(s) == "?" else n for s, n in zip(front + back, ends)], \
            (head, shape, got)


def test_each_option_runs_in_the_calling_context():
    # the attention each option computes is observed in the option's own body too (its calling
    # contexts first, after the option's own analysis where it has a shape of its own)
    weights = [v for v in _answer()["values"] if v["function"] == "eager_attention" and v["name"] == "weights"]
    calls = [c["context"] for c in weights[0]["contexts"] if c["context"] != "in terms of the parameters"]
    assert calls[:1] == ["Block.forward:66"]


def _check(src, tmp_path):
    p = tmp_path / "m.py"
    p.write_text(src)
    return analyze_source(src, str(p))


def test_an_option_that_fails_is_no_error(tmp_path):
    # the program may never take the option that needs another rank
    src = (
        "import torch\nfrom torch import nn\n\n"
        "POOL = {'flat': lambda x: x.mean(1), 'image': lambda x: nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)}\n\n"
        "def f(x: torch.Tensor, kind: str):\n"
        "    assert x.dim() == 2\n"
        "    y = POOL[kind](x)\n"
        "    return y\n")
    r = _check(src, tmp_path)
    assert [d for d in r.diagnostics if d.severity == "error"] == []


def test_a_registry_with_a_value_that_is_not_callable_stays_unknown(tmp_path):
    src = (
        "import torch\nfrom torch import nn\n\n"
        "NORMS = {'layer': nn.LayerNorm, 'none': None}\n\n"
        "def f(x: torch.Tensor, kind: str):\n"
        "    assert x.dim() == 2\n"
        "    norm = NORMS[kind]\n"
        "    y = norm(x.shape[-1])(x)\n"
        "    return y\n")
    values = {v["name"]: v["shape"] for v in _check(src, tmp_path).infer_json()["values"]}
    assert values.get("y") is None  # (a value with no shape is not listed)


def test_the_arms_of_an_undecided_if_that_bind_different_layers_are_both_called(tmp_path):
    src = (
        "import torch\nfrom torch import nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, d: int, gated: bool):\n"
        "        super().__init__()\n"
        "        self.act = nn.SiLU() if gated else nn.GELU()\n"
        "        self.fc = nn.Linear(d, d) if gated else nn.Sequential(nn.Linear(d, 2 * d), nn.Linear(2 * d, d))\n\n"
        "    def forward(self, x: torch.Tensor):\n"
        "        assert x.dim() == 3\n"
        "        y = self.fc(self.act(x))\n"
        "        return y\n")
    values = {v["name"]: v["shape"] for v in _check(src, tmp_path).infer_json()["values"]}
    assert values["y"] == ["x.shape[0]", "x.shape[1]", "d"]
