"""Q1 for parameters whose rank nothing in the body fixes (`return self.fc(x)` takes any rank
≥ 1): the migration tries ranks, the fewest axes first, as the paper's rank search does, instead
of answering "partial, rank unknown". Every migration here is run on real tensors."""
import pytest
import torch

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.migrate import answer_migration, migrate_function

from .helpers import namespace

PROGRAM = '''import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.norm = nn.LayerNorm(16)
        self.emb = nn.Embedding(10, 16)

    def linear(self, x):
        return self.fc(x)

    def norm_then_fc(self, x):
        return self.fc(self.norm(x))

    def embed(self, ids):
        return self.emb(ids)


def matmul(a, b):
    return a @ b


def mean1(x):
    return x.mean(dim=1)


def cat(x, y):
    return torch.cat([x, y], dim=1)


def pairwise(a, b):
    s = a @ b.transpose(-2, -1)  # b of rank 1 is not followed: the next ranks are tried
    return s / math.sqrt(a.shape[-1])
'''

FUNCTIONS = ["M.linear", "M.norm_then_fc", "M.embed", "matmul", "mean1", "cat", "pairwise"]


@pytest.mark.parametrize("qualname", FUNCTIONS)
def test_a_rank_is_found_and_the_migration_runs(qualname):
    result = analyze_session(PROGRAM, "ranks.py")
    assert migrate_function(result, qualname, search=False)["status"] == "partial"  # the body alone
    m = migrate_function(result, qualname)
    assert m["status"] == "static", m
    ns = namespace(PROGRAM)
    fn = getattr(ns["M"](), qualname.split(".")[1]) if "." in qualname else ns[qualname]
    args = {p["name"]: torch.zeros(p["shape"], dtype=torch.long if p["name"] == "ids" else torch.float)
            for p in m["params"]}
    fn(**args)
    assert all("does not fix its rank" in p["reason"] for p in m["params"])


def test_the_fewest_axes_first():
    got = {f["function"]: {p["name"]: p["shape"] for p in f["params"]}
           for f in answer_migration(analyze_session(PROGRAM, "ranks.py"))}
    assert got["M.linear"] == {"x": [16]}
    assert got["mean1"] == {"x": [2, 1]}  # a batch of 2 where the facts allow it
    assert got["pairwise"] == {"a": [1], "b": [2, 1]}  # axis 0 of a rank >= 2 input: a batch of 2


def test_ranks_and_constraints_together():
    m = migrate_function(analyze_session(PROGRAM, "ranks.py"), "cat", ["cat: x.shape[1] == 5", "cat: y.shape[0] >= 3"])
    assert m["status"] == "static"
    x, y = ({p["name"]: p["shape"] for p in m["params"]}[k] for k in ("x", "y"))
    assert x[1] == 5 and y[0] >= 3 and x[0] == y[0]
    torch.cat([torch.zeros(x), torch.zeros(y)], dim=1)


def test_no_rank_that_works_leaves_it_partial():
    text = "import torch\n\n\ndef f(x):\n    return x.view(3, 5) + x.view(2, 7)\n"
    m = migrate_function(analyze_session(text, "bad.py"), "f")
    assert m["status"] in ("partial", "none") and m["params"][0]["shape"] is None


def test_no_rank_is_vouched_for_past_an_operation_the_analysis_cannot_follow():
    """`somelib.transform(x)` might need any rank: finding no error at rank 1 proves nothing."""
    text = ("import torch\nimport somelib\n\n\ndef f(x):\n    y = somelib.transform(x)\n"
            "    return x + 1\n")
    m = migrate_function(analyze_session(text, "unknown_op.py"), "f")
    assert m["status"] == "partial" and m["params"][0]["shape"] is None


def test_the_search_stays_within_its_step_budget(monkeypatch):
    """The tries are counted in interpreter steps (the same answer on any machine): once an
    answer's budget is spent, the functions after are answered without a search."""
    from shapehint.questions import migrate
    result = analyze_session(PROGRAM, "ranks.py")
    free = {f["function"]: f["status"] for f in answer_migration(result)}
    monkeypatch.setattr(migrate, "SEARCH_STEPS_PER_ANSWER", 1)
    tight = {f["function"]: f["status"] for f in answer_migration(analyze_session(PROGRAM, "ranks.py"))}
    searched = [q for q in FUNCTIONS if q in free]
    assert [tight[q] for q in searched] == ["static"] + ["partial"] * (len(searched) - 1)
    assert all(free[q] == "static" for q in searched)


def test_rank_combinations_come_fewest_axes_first_and_lazily():
    import itertools

    from shapehint.questions.migrate import RANKS_TRIED, _fewest_first
    assert list(itertools.islice(_fewest_first(2), 6)) == [(0, 0), (0, 1), (1, 0), (0, 2), (1, 1), (2, 0)]
    assert len(list(_fewest_first(2))) == RANKS_TRIED ** 2
    # forty parameters of unknown rank (4**40 combinations): the first few come at once
    assert list(itertools.islice(_fewest_first(40), 2)) == [(0,) * 40, (0,) * 39 + (1,)]


def test_many_parameters_of_unknown_rank():
    params = ", ".join(f"a{i}" for i in range(14))
    text = f"import torch\n\n\ndef f({params}):\n    return " + " + ".join(f"a{i}" for i in range(14)) + "\n"
    m = migrate_function(analyze_session(text, "many.py"), "f")
    assert m["status"] == "static" and all(p["shape"] == [1] for p in m["params"])
