"""A call cut off (past the share for another module's code, costs.py; the depth or recursion
bounds) may write what its arguments reach in the part that never ran (cut_writes.py): a
configuration given to a helper or to a base class's `__init__` whose set-up changes a width.
The attribute read after the call is unknown, never the value written before it (which gave a
wrong shape and a false SH101); one no code stores keeps its value. Checked against torch by
running the same package."""
import ast

import torch

from shapehint.analysis import costs, cut_writes
from shapehint.analysis.api import analyze_source

from .program_runs import run_package, write_package

HELPER = """def configure(cfg):
    total = 0
    for i in range(cfg.rounds):
        total = total + i
    cfg.width = 32
    return total


class Base:
    def __init__(self, cfg):
        total = 0
        for i in range(cfg.rounds):
            total = total + i
        cfg.width = 32
        self.cfg = cfg
"""

MODEL = """import torch
import torch.nn as nn
from .helper import configure, Base


class Cfg:
    def __init__(self):
        self.width = 16
        self.heads = 4
        self.rounds = 3

class Model(Base):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.proj = nn.Linear(cfg.width, 8)


def run(x):
    assert x.shape == (2, 32)
    cfg = Cfg()
    cfg.rounds = 5000
    configure(cfg)
    a = torch.zeros(cfg.width)
    h = torch.zeros(cfg.heads)
    cfg2 = Cfg()
    cfg2.rounds = 5000
    m = Model(cfg2)
    b = torch.zeros(cfg2.width)
    c = m.proj(x)
    return a, h, b, c
"""

# the helper calls another module's function, which stores a second attribute
DEEPER = """from .more import widen


def configure(cfg):
    total = 0
    for i in range(cfg.rounds):
        total = total + i
    widen(cfg)
    return total
"""
MORE = """def widen(cfg):
    cfg.width = 32
    cfg.heads = 8
"""


def _files(configure: str = "") -> dict:
    helper = HELPER if not configure else configure + HELPER[HELPER.index("\n\nclass Base"):]
    return {"stale/__init__.py": "", "stale/more.py": MORE, "stale/helper.py": helper, "stale/m.py": MODEL}


def _analysed(path):
    r = analyze_source(path.read_text(), str(path))
    out = r.infer_json()
    return {v["name"]: v["shape"] for v in out["values"] if v["function"] == "run"}, out["diagnostics"]


def _cut(monkeypatch):
    monkeypatch.setattr(costs, "IMPORTED_STEPS", 5)
    monkeypatch.setattr(costs, "BUILDING_STEPS", 5)


def test_an_attribute_a_cut_off_call_may_store_is_unknown_after_it(tmp_path, monkeypatch):
    path = write_package(tmp_path, _files())
    x = torch.randn(2, 32)
    want = {k: list(t.shape) for k, t in zip("ahbc", run_package(tmp_path, "stale.m", x))}
    assert want["a"] == want["b"] == [32] and want["h"] == [4]
    _cut(monkeypatch)
    got, diagnostics = _analysed(path)
    assert not [d for d in diagnostics if d["severity"] == "error"]  # (16 written before: a false SH101)
    assert "a" not in got and "b" not in got  # never [16]
    assert got["h"] == want["h"]  # only the class's own constructor stores `heads`: kept
    assert got["c"] == want["c"]


def test_the_calls_that_run_to_their_end_keep_what_they_wrote(tmp_path):
    got, diagnostics = _analysed(write_package(tmp_path, _files()))
    assert got["a"] == got["b"] == [32] and got["h"] == [4] and got["c"] == [2, 8] and not diagnostics


def test_what_the_functions_it_calls_store_is_unknown_too(tmp_path, monkeypatch):
    path = write_package(tmp_path, _files(DEEPER))
    x = torch.randn(2, 32)
    want = {k: list(t.shape) for k, t in zip("ahbc", run_package(tmp_path, "stale.m", x))}
    assert want["a"] == [32] and want["h"] == [8]
    _cut(monkeypatch)
    got, diagnostics = _analysed(path)
    assert "a" not in got and "h" not in got and not diagnostics  # never [16] nor [4]
    monkeypatch.undo()
    got, _ = _analysed(path)
    assert got["a"] == want["a"] and got["h"] == want["h"]


def _facts(src: str, method: bool = False) -> tuple:
    tree = ast.parse(src)
    fn = tree.body[0].body[1] if method else tree.body[0]
    return cut_writes._scan(fn, method)


def test_the_scan_tells_whose_stores_are_whose():
    calls, supers, names, mine = _facts(
        "class C(B):\n    def __init__(self):\n        self.a = 1\n"
        "    def set(self, o):\n        self.b = 2\n        o.c = 3\n        setattr(o, 'e', 2)\n"
        "        super().reset(o)\n        self.helper(o)\n        D.__init__(o)\n", method=True)
    assert names == {"c", "e"} and mine == {"b"} and supers == {"reset"}
    assert {"helper", "D", "setattr"} <= calls
    init = cut_writes._scan(ast.parse("class C:\n    def __init__(self):\n        self.a = 1\n").body[0].body[0], True)
    assert not init[2] and not init[3]  # (a construction's own instance is a new one)
    assert _facts("def f(self, o):\n    self.d = 1\n")[2] == {"d"}  # (no method: any object)


def test_the_values_of_calls_cut_off_are_those_the_bounds_give():
    src = open(costs.__file__).read() + open(costs.__file__.replace("costs.py", "calls.py")).read()
    for reason in cut_writes.CUT_SHORT:
        assert f'UnknownV("{reason}")' in src


REPEATED = """import torch
from .helper import configure


class Cfg:
    def __init__(self):
        self.width = 16
        self.heads = 4
        self.rounds = 5000


def run(x):
    c1, c2, c3 = Cfg(), Cfg(), Cfg()
    configure(c1)
    a = torch.zeros(c1.width)
    configure(c2)
    b = torch.zeros(c2.width)
    from .other import other_fn  # (a module loaded between the calls)
    other_fn()
    configure(c3)
    c = torch.zeros(c3.width)
    h = torch.zeros(c3.heads)
    n = torch.zeros(Cfg().width)
    return a, b, c, h, n
"""
OTHER = """def other_fn():
    return 1
"""


def test_what_a_repeated_cut_off_call_may_store_is_searched_once_per_set_of_modules(tmp_path, monkeypatch):
    """A base constructor's helper cut off at every construction: the search of what it may
    store (through the functions it may call, by name) runs once while no module is loaded,
    again after one is (the search reads the loaded modules), and forgets the same attributes."""
    files = _files(DEEPER)
    files.update({"stale/other.py": OTHER, "stale/r.py": REPEATED})
    path = write_package(tmp_path, files)  # (the last file's path)
    want = [list(t.shape) for t in run_package(tmp_path, "stale.r", torch.randn(2, 32))]
    assert want == [[32], [32], [32], [8], [16]]
    searched = []
    search = cut_writes._reached_stores
    monkeypatch.setattr(cut_writes, "_reached_stores", lambda node, modules: searched.append(node.name) or
                        search(node, modules))
    _cut(monkeypatch)
    got, diagnostics = _analysed(path)
    assert not diagnostics
    assert not {"a", "b", "c", "h"} & set(got)  # each cut forgets width and heads (never [16], [4])
    assert got["n"] == want[4]  # (an instance no cut call was given keeps them)
    assert searched.count("configure") == 2  # c1 (c2 answered from it), c3 after `other` loaded
