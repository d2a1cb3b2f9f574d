"""Every Q1/Q2 proposal of the test corpora runs with PyTorch in training mode (issue 26 item 3)."""
import functools
import os

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.migrate import answer_migration, migrate_function

from .migration_exec import ROOT, check_file, corpus, definitions, run_proposal

FILES = corpus()
_checked = functools.lru_cache(maxsize=None)(check_file)  # both tests read the same answers


@pytest.mark.parametrize("path", [pytest.param(f, id=os.path.relpath(f, ROOT)) for f in FILES])
def test_static_proposals_run_in_training_mode(path):
    bad, ran, skipped = _checked(path)
    assert not bad, bad


def test_the_corpus_is_mostly_executed():
    ran = skipped = 0
    for f in FILES:
        _, r, s = _checked(f)
        ran, skipped = ran + r, skipped + s
    # (every one is built: configuration objects, lists and holes come from the proposal itself)
    assert ran >= 110 and skipped <= 2


def _run(src, qualname, tmp_path, assume=()):
    path = tmp_path / "m.py"
    path.write_text(src)
    result = analyze_session(src, str(path))
    m = migrate_function(result, qualname, list(assume))
    return m, definitions(src, str(path))


def test_batchnorm_in_training_gets_a_batch_of_two(tmp_path):
    src = ("import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.conv = nn.Conv2d(3, 8, 3, padding=1)\n        self.bn = nn.BatchNorm2d(8)\n"
           "        self.pool = nn.AdaptiveAvgPool2d(1)\n        self.fc = nn.Linear(8, 2)\n\n"
           "    def forward(self, x):\n        return self.fc(self.pool(self.bn(self.conv(x))).flatten(1))\n")
    m, ns = _run(src, "Net.forward", tmp_path)
    assert m["status"] == "static" and m["params"][0]["shape"][:2] == [2, 3]
    assert run_proposal(ns, m, {}) is None


def test_a_precondition_behind_a_rank_branch_is_kept(tmp_path):
    src = ("import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.conv = nn.Conv2d(8, 4, 3)\n\n"
           "    def forward(self, x):\n        if x.dim() == 4:\n            x = self.conv(x)\n        return x.sum()\n")
    m, ns = _run(src, "Net.forward", tmp_path)
    assert m["status"] == "static"
    shape = m["params"][0]["shape"]
    assert len(shape) != 4 or shape[1] == 8
    assert run_proposal(ns, m, {}) is None


def test_a_precondition_inside_a_helper_is_kept(tmp_path):
    src = ("import torch\n\ndef mix(x, w):\n    return torch.einsum('bnd,nm->bmd', x, w)\n\n"
           "def f(x, w):\n    y = mix(x, w)\n    return y + 1\n")
    m, ns = _run(src, "f", tmp_path)
    assert m["status"] == "static", m
    shapes = {p["name"]: p["shape"] for p in m["params"]}
    assert len(shapes["x"]) == 3 and len(shapes["w"]) == 2 and shapes["w"][0] == shapes["x"][1]
    assert run_proposal(ns, m, {}) is None


def test_a_rank_every_path_raises_at_is_no_migration(tmp_path):
    src = ("import torch\n\ndef f(mask):\n    if mask.dim() == 2:\n        return mask[:, None, :]\n"
           "    raise ValueError('wrong rank')\n")
    m, ns = _run(src, "f", tmp_path)
    assert m["status"] == "static" and len(m["params"][0]["shape"]) == 2
    assert run_proposal(ns, m, {}) is None


def test_sizes_passed_to_constructors_are_not_tensors(tmp_path):
    src = "import torch.nn as nn\n\ndef block(cin, cout):\n    return nn.Sequential(nn.Conv2d(cin, cout, 3), nn.ReLU())\n"
    path = tmp_path / "b.py"
    path.write_text(src)
    assert [m["function"] for m in answer_migration(analyze_session(src, str(path)))] == []


def test_under_constraints_the_batch_follows_them(tmp_path):
    src = ("import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.bn = nn.BatchNorm1d(4)\n\n    def forward(self, x):\n        return self.bn(x)\n")
    m, ns = _run(src, "Net.forward", tmp_path, ["Net.forward: 5 <= x.shape[0] <= 20"])
    assert m["status"] == "static" and 5 <= m["params"][0]["shape"][0] <= 20
    assert run_proposal(ns, m, {}) is None


def test_a_proposal_says_which_constructor_sizes_it_assumed_and_runs_with_them(tmp_path):
    """A block whose width has no default: the proposal is made for a model built at a size
    layers are built with (not 1, where `c // 2` builds a layer of no channels), and says so."""
    src = ("import torch.nn as nn\n\nclass Up(nn.Module):\n    def __init__(self, c, hidden=16):\n"
           "        super().__init__()\n        self.up = nn.ConvTranspose2d(c, c // 2, 2, stride=2)\n"
           "        self.fc = nn.Conv2d(c // 2, hidden, 1)\n\n"
           "    def forward(self, x):\n        return self.fc(self.up(x))\n")
    m, ns = _run(src, "Up.forward", tmp_path)
    assert m["status"] == "static" and m["assumed"]["c"] >= 2 and "hidden" not in m["assumed"]
    assert m["params"][0]["shape"][1] == m["assumed"]["c"]
    assert run_proposal(ns, m, {}) is None


def test_a_size_passed_on_to_a_module_class_is_not_a_tensor(tmp_path):
    """`_stage(self, planes)` passes `planes` to a block's constructor, which builds a layer of
    that width (and `planes * 4` to another): a size, so the method has no tensor to migrate."""
    from shapehint.questions.migrate import migratable_functions
    src = ("import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self, cin, planes):\n"
           "        super().__init__()\n        self.conv = nn.Conv2d(cin, planes, 3)\n\n"
           "    def forward(self, x):\n        return self.conv(x)\n\n"
           "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.c = 3\n"
           "        self.s = self._stage(8)\n\n    def _stage(self, planes):\n        b = Block(self.c, planes)\n"
           "        self.c = planes * 4\n        return nn.Sequential(b, nn.BatchNorm2d(planes * 4))\n")
    path = tmp_path / "m.py"
    path.write_text(src)
    got = migratable_functions(analyze_session(src, str(path)))
    assert "Block.forward" in got and "Net._stage" not in got


def test_a_configuration_object_is_named_and_built_with_the_assumed_attributes(tmp_path):
    """`def __init__(self, cfg)` unannotated: the analysis stands in for `cfg` with the file's one
    configuration class; the proposal says so (`instances`), and the object built from that class
    with the assumed attributes runs it (before, no object could be built: skipped)."""
    src = ("from dataclasses import dataclass\nimport torch.nn as nn\n\n@dataclass\nclass Cfg:\n    width: int = 12\n"
           "    heads: int = 3\n    drop: float = 0.0\n\nclass Mix(nn.Module):\n    def __init__(self, cfg):\n"
           "        super().__init__()\n        self.h = cfg.heads\n        self.fc = nn.Linear(cfg.width, cfg.width)\n"
           "        self.drop = nn.Dropout(cfg.drop)\n\n    def forward(self, x):\n        B, T, C = x.shape\n"
           "        y = self.fc(x).view(B, T, self.h, C // self.h)\n        return self.drop(y.flatten(2))\n")
    m, ns = _run(src, "Mix.forward", tmp_path)
    assert m["status"] == "static" and m["instances"] == {"cfg": "Cfg"}
    assert m["assumed"]["cfg.width"] == 12 and m["params"][0]["shape"][2] == 12
    assert run_proposal(ns, m, {}) is None


def test_a_configuration_field_without_a_default_gets_a_size(tmp_path):
    """`depth: int` has no default and no shape depends on it: any value passes, but the
    configuration cannot be built without one, so the proposal names one."""
    src = ("from dataclasses import dataclass\nimport torch.nn as nn\n\n@dataclass\nclass Config:\n    depth: int\n"
           "    hidden: int = 16\n\nclass Stack(nn.Module):\n    def __init__(self, config: Config):\n"
           "        super().__init__()\n        self.layers = nn.ModuleList([nn.Linear(config.hidden, config.hidden)"
           " for _ in range(config.depth)])\n\n    def forward(self, x):\n        for layer in self.layers:\n"
           "            x = layer(x)\n        return x\n")
    m, ns = _run(src, "Stack.forward", tmp_path)
    assert m["status"] == "static" and m["instances"] == {"config": "Config"}
    assert m["assumed"]["config.depth"] >= 1 and m["params"][0]["shape"][-1] == 16
    assert run_proposal(ns, m, {}) is None


def test_a_list_of_sizes_read_item_by_item_is_assumed_as_a_list(tmp_path):
    src = ("from typing import List\nimport torch\n\ndef windows(x: torch.Tensor, size: List[int]):\n"
           "    B, H, W, C = x.shape\n    wh, ww = size[0], size[1]\n"
           "    x = x.view(B, H // wh, wh, W // ww, ww, C)\n    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, wh * ww, C)\n")
    m, ns = _run(src, "windows", tmp_path)
    assert m["status"] == "static" and isinstance(m["assumed"]["size"], list) and len(m["assumed"]["size"]) == 2
    assert run_proposal(ns, m, {}) is None


def test_a_shape_hole_is_filled_with_the_value_the_proposal_took(tmp_path):
    """A file with a hole (`nn.Linear(__, 10)`) does not run as written: the proposal says the
    hole's value it was chosen with, and the file with that value runs it."""
    from .migration_exec import filled
    src = ("import torch\nimport torch.nn as nn\n\nclass M(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.conv = nn.Conv2d(3, 4, 2, stride=2)\n"
           "        self.fc = nn.Linear(__, 10)\n\n    def forward(self, x):\n"
           "        assert x.shape[2:] == (8, 8)\n        return self.fc(self.conv(x).flatten(1))\n")
    m, _ = _run(src, "M.forward", tmp_path)
    assert m["status"] == "static" and m["holes"] == [{"line": 8, "col": 28, "value": 64}]
    holes = tuple((h["line"], h["col"], h["value"]) for h in m["holes"])
    assert run_proposal(definitions(filled(src, holes), str(tmp_path / "m.py")), m, {}) is None


def test_a_none_default_takes_its_arm_in_the_proposal(tmp_path):
    """`downsample=None`: the generic instance may hold a layer there, so `out + identity`
    requires nothing of the widths; the model built with its defaults takes the None arm, where
    they must agree, and the proposal is made for that model."""
    src = ("import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self, cin: int, planes: int, downsample=None):\n"
           "        super().__init__()\n        self.conv = nn.Conv2d(cin, planes * 4, 1)\n"
           "        self.bn = nn.BatchNorm2d(planes * 4)\n        self.downsample = downsample\n\n"
           "    def forward(self, x):\n        identity = x\n        out = self.bn(self.conv(x))\n"
           "        if self.downsample is not None:\n            identity = self.downsample(x)\n"
           "        return out + identity\n")
    m, ns = _run(src, "Block.forward", tmp_path)
    assert m["status"] == "static" and m["assumed"]["cin"] == 4 * m["assumed"]["planes"]
    assert m["params"][0]["shape"][1] == m["assumed"]["cin"]
    assert run_proposal(ns, m, {}) is None
