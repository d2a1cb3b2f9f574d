"""The step budget is shared out per function: one function that runs long is cut short on its
own (SH004 on its name) and every function after it is still analysed; a recursion whose depth
depends on a value the analysis does not know is followed only a few levels (it doubled at each
level before: timm's DlaTree spent the whole module's budget and 24 of 35 functions went
unanalysed, silently). Steps are the interpreter's deterministic work count, not a timing."""
from shapehint.analysis import interp
from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.migrate import migrate_function

LONG = '''import torch


def long(x):
    for i in range(32):
        for j in range(32):
            for k in range(32):
                x = x + i * j * k
    return x


def after(x):
    assert x.shape == (5, 3)
    return x.view(4, 4)
'''


def test_a_long_function_is_cut_short_and_the_rest_still_analysed():
    r = analyze_session(LONG, "long.py")
    cut = [d for d in r.result.diagnostics if d.code == "SH004"]
    assert [(d.line, d.col, d.end_col, d.severity) for d in cut] == [(4, 4, 8, "information")]
    assert "`long`" in cut[0].message and "150,000 steps" in cut[0].message
    assert not r.result.stats["truncated"] and r.result.stats["cut_short"] == ["long"]  # the module's budget is not spent
    assert [(d.line, d.code) for d in r.result.diagnostics if d.severity == "error"] == [(14, "SH103")]
    assert migrate_function(r, "long")["status"] == "unknown"  # its facts stop midway


def test_the_module_budget_still_bounds_the_whole_file(monkeypatch):
    monkeypatch.setattr(interp, "MAX_STEPS", 1_000)
    r = analyze_source(LONG, "long.py")
    assert r.stats["truncated"] and r.stats["steps"] <= 1_001
    assert [(d.line, d.code, d.severity) for d in r.diagnostics] == [(1, "SH004", "information")]
    assert "1 function not analysed (`after`)" in r.diagnostics[0].message  # and `long` cut short


TREE = '''import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Tree(nn.Module):
    """Each level holds two subtrees of one level less (a DLA-style aggregation tree)."""

    def __init__(self, levels: int, cin: int, cout: int):
        super().__init__()
        if levels == 1:
            self.left = Block(cin, cout)
            self.right = Block(cout, cout)
        else:
            self.left = Tree(levels - 1, cin, cout)
            self.right = Tree(levels - 1, cout, cout)

    def forward(self, x):
        return self.right(self.left(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.tree = Tree(4, 3, 16)

    def forward(self, x):
        return self.tree(x)


y = Net()(torch.zeros(2, 3, 8, 8))
bad = Net()(torch.zeros(2, 5, 8, 8))
'''


def test_a_recursion_on_an_unknown_depth_is_bounded():
    r = analyze_source(TREE, "tree.py")
    # Tree.__init__'s own analysis (levels unknown) doubled at each guessed level, to MAX_DEPTH
    assert r.stats["steps"] < 5_000, r.stats["steps"]
    assert not [d for d in r.diagnostics if d.code == "SH004"]


def test_a_recursion_the_values_decide_is_followed_to_its_end():
    r = analyze_source(TREE, "tree.py")
    ys = [v for v in r.infer_json()["values"] if v["name"] == "y"]
    assert ys and ys[0]["shape"] == [2, 16, 8, 8]
    errors = [(d.line, d.code) for d in r.diagnostics if d.severity == "error"]
    assert errors == [(40, "SH101")]  # 5 channels into the Conv2d(3, 16) four levels down


def test_the_note_survives_an_edit_elsewhere_in_the_warm_workspace(tmp_path):
    """The language server's incremental run restores untouched functions from its cache: the
    long function is not re-run after an edit in `after`, and its SH004 stays."""
    from shapehint.analysis.workspace import Workspace
    ws, path = Workspace(), str(tmp_path / "long.py")
    ws.update(path, LONG, 1)
    edited = ws.update(path, LONG.replace("view(4, 4)", "view(5, 3)"), 2)
    assert edited.stats["reanalysed"] == ["after"]
    assert [(d.line, d.code) for d in edited.diagnostics] == [(4, "SH004")]  # view(5, 3) fits
