"""Imported workspace modules are parsed once while their text is unchanged (shared by the
analyses of every file that imports them), and parsed again as soon as it changes."""
from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.workspace import Workspace

LAYERS = '''import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear({n}, 4)

    def forward(self, x):
        return self.fc(x)
'''

MODEL = '''import torch
from layers import Block

y = Block()(torch.zeros(2, 8))
'''


def test_a_sibling_is_parsed_once_and_again_when_it_changes(tmp_path):
    (tmp_path / "layers.py").write_text(LAYERS.format(n=8))
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    layers = str((tmp_path / "layers.py").resolve())

    first = analyze_session(MODEL, str(model))
    second = analyze_session(MODEL + "\n", str(model))
    assert [d.code for d in first.result.diagnostics] == []
    # the same parse (its lines list is the very same object), not a second one
    assert second.interp.module_lines[layers] is first.interp.module_lines[layers]

    # same size, another text: in_features 8 -> 9, so the call in model.py now fails
    (tmp_path / "layers.py").write_text(LAYERS.format(n=9))
    third = analyze_session(MODEL, str(model))
    assert third.interp.module_lines[layers] is not first.interp.module_lines[layers]
    assert "SH101" in [d.code for d in third.result.diagnostics]


def test_edits_in_an_editor_reuse_the_siblings_parses(tmp_path):
    (tmp_path / "layers.py").write_text(LAYERS.format(n=8))
    model = tmp_path / "model.py"
    layers = str((tmp_path / "layers.py").resolve())
    ws = Workspace()
    ws.update(str(model), MODEL, 1)
    lines = ws.session(str(model)).interp.module_lines[layers]
    b = ws.update(str(model), MODEL.replace("2, 8", "3, 8"), 2)
    assert ws.session(str(model)).interp.module_lines[layers] is lines
    assert [d.code for d in b.diagnostics] == []
