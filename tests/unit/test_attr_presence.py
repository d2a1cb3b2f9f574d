"""`hasattr(self, "name")` where the constructor surely set the attribute (analysis/attr_presence.py):
True, so the other arm (often of another rank) is not joined in; an attribute written on some
paths only, or deleted by the class, stays undecided. Every claimed shape is checked by running
the program with torch."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

SRC = """import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.register_buffer("position_ids", torch.arange(n).expand((1, -1)), persistent=False)


class Emb(Base):
    def __init__(self, n: int, d: int, flag: bool):
        super().__init__(n)
        self.pos = nn.Embedding(n, d)
        self.scale: float = 2.0
        if flag:
            self.extra = torch.zeros(3)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        if hasattr(self, "position_ids"):
            position_ids = self.position_ids[:, :seq_length]
        else:
            position_ids = torch.arange(seq_length).unsqueeze(0).expand_as(input_ids)
        pe = self.pos(position_ids)
        if hasattr(self, "position_ids"):
            t = torch.zeros(5)
        else:
            t = torch.zeros(5, 6)
        if hasattr(self, "scale"):
            s = torch.zeros(2, 3)
        else:
            s = torch.zeros(2, 3, 4)
        if hasattr(self, "extra"):
            e = torch.zeros(1, 2)
        else:
            e = torch.zeros(1, 2, 3)
        return pe, s, e


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = Emb(64, 32, True)

    def forward(self, ids):
        y, s, e = self.emb(ids)
        return y
"""


def _values(src):
    r = analyze_source(src, "m.py")
    assert [d for d in r.diagnostics if d.severity == "error"] == []
    return r.infer_json()["values"]


def _shapes(values, name, function):
    return [v["shape"] for v in values if v["name"] == name and v["function"] == function]


def test_an_attribute_the_constructor_surely_sets_is_there():
    values = _values(SRC)
    # registered by the base's constructor, reached through `super().__init__(n)`
    assert _shapes(values, "pe", "Emb.forward") == [[1, "min(input_ids.shape[1], n)", "d"]]
    assert _shapes(values, "y", "Model.forward") == [[1, "min(64, ids.shape[1])", 32]]
    assert _shapes(values, "s", "Emb.forward") == [[2, 3]]  # only the arm that runs
    assert _shapes(values, "t", "Emb.forward") == [[5]]
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    y = ns["Model"]()(torch.zeros(2, 5, dtype=torch.long))
    assert list(y.shape) == [1, min(64, 5), 32]
    assert hasattr(ns["Emb"](4, 2, False), "scale")


def test_an_attribute_set_on_some_paths_only_is_undecided():
    values = _values(SRC)
    assert _shapes(values, "e", "Emb.forward") == [[1, 2], [1, 2, 3]]  # both arms
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    assert not hasattr(ns["Emb"](4, 2, False), "extra") and hasattr(ns["Emb"](4, 2, True), "extra")


@pytest.mark.parametrize("change", [
    ("        super().__init__()\n        self.register_buffer", "        super().__init__()\n        if n > 3:\n"
                                                                  "            return\n        self.register_buffer"),
    ("class Emb(Base):\n", "class Emb(Base):\n    def drop(self):\n        del self.position_ids\n\n"),
])
def test_an_early_return_or_a_deletion_leaves_it_undecided(change):
    values = _values(SRC.replace(*change))
    assert _shapes(values, "t", "Emb.forward") == [[5], [5, 6]]  # both arms ran


def test_a_delattr_anywhere_in_the_class_leaves_every_name_undecided():
    values = _values(SRC.replace("class Emb(Base):\n", "class Emb(Base):\n    def drop(self, k):\n"
                                                       "        delattr(self, k)\n\n"))
    assert _shapes(values, "t", "Emb.forward") == [[5], [5, 6]]
    assert _shapes(values, "s", "Emb.forward") == [[2, 3], [2, 3, 4]]


def test_the_syntax_is_read_once_per_tree_and_the_answer_is_the_same_again():
    """The class's deletions and its constructor's writes are kept per tree (the tree of an
    imported module lives across analyses): a second analysis of the same tree reuses them and
    answers alike, and another tree of the same text gets its own."""
    import ast

    from shapehint.analysis import attr_presence
    tree = ast.parse(SRC)
    emb = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Emb")
    init = emb.body[0]
    steps = attr_presence._init_steps(init)
    assert [sorted(w) for w, _, _ in steps] == [[], ["pos"], ["scale"], []]
    assert [s for _, s, _ in steps] == [True, False, False, False]
    assert attr_presence._init_steps(init) is steps
    assert attr_presence._deletes(emb, "pos") is False
    other = ast.parse(SRC.replace("class Emb(Base):\n", "class Emb(Base):\n    def drop(self):\n        del self.pos\n\n"))
    emb2 = next(n for n in other.body if isinstance(n, ast.ClassDef) and n.name == "Emb")
    assert attr_presence._deletes(emb2, "pos") is True and attr_presence._deletes(emb2, "scale") is False
    assert attr_presence._deletes(emb, "pos") is False
    assert _values(SRC) == _values(SRC)
