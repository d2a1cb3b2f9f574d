"""The questions on the language server's warm results: after an edit, functions the edit did not
touch have their summaries restored from the cache (no solver state), and a huge file's analysis
may stop at its step budget. Either way the answer for an untouched function is the one a cold
analysis gives, or `unknown` — never an exception (which dropped the code action silently)."""
from shapehint.analysis import interp
from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.workspace import Workspace
from shapehint.lsp.questions import migration_edits
from shapehint.questions.migrate import answer_migration, migrate_function

SRC = '''import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        a, b = x.shape
        return self.fc(x)


def g(y):
    return y.view(2, 8)
'''
EDITED = SRC.replace("view(2, 8)", "view(8, 2)")


def _warm_after_edit(tmp_path):
    ws = Workspace()
    path = str(tmp_path / "m.py")
    ws.update(path, SRC, 1)
    result = ws.update(path, EDITED, 2)
    assert result.stats["reanalysed"] == ["g"]  # M.forward's summary came from the cache
    return ws.session(path), path


def test_migration_of_an_untouched_function_after_an_edit(tmp_path):
    warm, path = _warm_after_edit(tmp_path)
    cold = analyze_session(EDITED, path)
    got = migration_edits(warm, "M.forward")
    assert got[0] == "static" and got[1]
    assert got == migration_edits(cold, "M.forward")


def test_a_function_the_budget_cut_off_is_unknown(monkeypatch):
    text = "import torch\n\n" + "\n".join(
        f"def f{i}(x):\n    a, b = x.shape\n    return x.view(b, a)\n" for i in range(40))
    monkeypatch.setattr(interp, "MAX_STEPS", 60)
    session = analyze_session(text, "big.py")
    assert session.result.stats["truncated"]
    last = migrate_function(session, "f39")
    assert last == {"function": "f39", "status": "unknown", "params": [], "clash": []}
    assert migration_edits(session, "f39") == ("unknown", [])
    assert all(a["status"] in ("static", "partial", "unknown") for a in answer_migration(session))
