"""Signatures read a file's classes and each class's layer assignments once (questions/class_trees.py,
issue 28): `_id_params` used to parse the whole file and walk every class of the hierarchy for each
function, a third of `infer`'s CPU on a transformers modeling file. The answers stay the same: the
parameters that reach an embedding are still integer ids, through a submodule and through a base
class's `__init__`, and the typical inputs run in PyTorch."""
import ast
import json
import sys

import pytest

from shapehint.analysis.engine import run
from shapehint.questions import class_trees
from shapehint.questions.signatures import signatures_json

PROGRAM = '''import torch
import torch.nn as nn


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(50, 8)

    def forward(self, tokens):
        return self.table(tokens)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embed()
        self.proj = nn.Linear(8, 4)

    def forward(self, input_ids):
        return self.proj(self.embed(input_ids))


class Tagger(Encoder):
    def forward(self, input_ids, scores):
        return self.proj(self.embed(input_ids)) + scores


def head(x):
    return x.sum(-1)
'''


def _signatures(monkeypatch):
    parses = []
    real = ast.parse

    def counting(source, *a, **k):
        caller = sys._getframe(1)
        if caller.f_globals["__name__"] == "shapehint.frontend.pyast":  # (every parse goes through it)
            caller = caller.f_back
        if source == PROGRAM and caller.f_globals["__name__"].startswith("shapehint.questions"):
            parses.append(1)  # (the rank search's own parse goes through the analysis's cache)
        return real(source, *a, **k)

    session = run(PROGRAM, "tagger.py", records=False)
    monkeypatch.setattr(ast, "parse", counting)
    class_trees._CLASSES.clear()
    return {s["function"]: s for s in signatures_json(session)}, len(parses)


def test_the_file_is_parsed_once_for_all_its_signatures(monkeypatch):
    sigs, parses = _signatures(monkeypatch)
    assert len(sigs) == 4
    assert parses == 1


def test_a_class_walk_is_kept_for_the_next_function():
    cls = next(n for n in ast.walk(ast.parse(PROGRAM)) if isinstance(n, ast.ClassDef) and n.name == "Encoder")
    first = class_trees.attribute_calls(cls)
    assert first == (("embed", "Embed"), ("proj", "nn.Linear"))
    assert class_trees.attribute_calls(cls) is first


def test_ids_are_found_through_submodules_and_base_classes(monkeypatch):
    sigs, _ = _signatures(monkeypatch)
    dtypes = {(f, p["name"]): p["dtype"] for f, s in sigs.items() for p in s["params"]}
    assert dtypes == {("Embed.forward", "tokens"): "int64", ("Encoder.forward", "input_ids"): "int64",
                      ("Tagger.forward", "input_ids"): "int64", ("Tagger.forward", "scores"): "float32",
                      ("head", "x"): "float32"}


def test_the_typical_inputs_run_in_torch(monkeypatch):
    torch = pytest.importorskip("torch")
    sigs, _ = _signatures(monkeypatch)
    space: dict = {}
    exec(compile(PROGRAM, "tagger.py", "exec"), space)
    for fn, make in (("Encoder.forward", space["Encoder"]), ("Tagger.forward", space["Tagger"])):
        args = [torch.randint(0, 50, p["example"]) if p["dtype"] == "int64" else torch.randn(p["example"])
                for p in sigs[fn]["params"]]
        make()(*args)  # an int64 id tensor of the example's shape is what the embedding takes
    json.dumps(sigs)
