"""CLI contracts (DESIGN §4): infer/check JSON and text, SARIF, exit statuses, project config."""
import json
import subprocess
import sys

BUG = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc(x)


net = Net()
y = net(torch.zeros(4, 120))
'''


def run(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "shapehint", *args], capture_output=True, text=True, cwd=cwd,
                       timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def test_check_text_json_and_sarif(tmp_path):
    f = tmp_path / "bug.py"
    f.write_text(BUG)
    p = run("check", str(f))
    assert p.returncode == 1
    assert f"{f}:15:" in p.stdout and "error SH101" in p.stdout and "expects the last dimension to be 128" in p.stdout
    data = json.loads(run("check", str(f), "--format", "json").stdout)
    d = data["files"][0]["diagnostics"][0]
    assert set(d) >= {"line", "col", "end_line", "end_col", "severity", "code", "message", "related"}
    assert d["line"] == 15 and d["col"] >= 0 and d["code"] == "SH101"
    assert any(r["line"] == 8 for r in d["related"])
    sarif = json.loads(run("check", str(f), "--format", "sarif").stdout)
    res = sarif["runs"][0]["results"][0]
    assert sarif["version"] == "2.1.0" and res["ruleId"] == "SH101"
    assert res["locations"][0]["physicalLocation"]["region"]["startColumn"] == d["col"] + 1


def test_infer_json_contract(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import torch\n\n\ndef f(x):\n    B, T, C = x.size()\n    y = x.view(B, T, 4, C // 4)\n    return y\n\n\n"
                 "z = torch.zeros(2, 3)\n")
    data = json.loads(run("infer", str(f)).stdout)
    assert data["file"] == str(f)
    by = {(v["function"], v["name"]): v for v in data["values"]}
    assert by[("f", "y")]["shape"] == ["B", "T", 4, "C//4"]
    assert by[("f", "y")]["line"] == 6 and by[("f", "y")]["col"] == 4
    assert by[("<module>", "z")]["shape"] == [2, 3]
    assert [s["function"] for s in data["signatures"]] == ["f"]


def test_infer_json_of_code_without_torch_has_no_signatures(tmp_path):
    f = tmp_path / "plain.py"
    f.write_text("def f(x):\n    return x + 1\n")
    p = run("infer", str(f))
    assert p.returncode == 0
    assert json.loads(p.stdout)["signatures"] == []


def test_project_config_excludes_and_reports_invalid_entries(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.shapehint]\nexclude = ["gen/*"]\nmax-file-size-kb = "x"\n')
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "bug.py").write_text(BUG)
    (tmp_path / "ok.py").write_text("import torch\nx = torch.zeros(2)\n")
    p = run("check", str(tmp_path))
    assert p.returncode == 0 and "1 file checked" in p.stdout
    assert p.stderr.count("SH003") == 1


def test_suppression_comment(tmp_path):
    f = tmp_path / "bug.py"
    f.write_text(BUG.replace("y = net(torch.zeros(4, 120))", "y = net(torch.zeros(4, 120))  # shapehint: ignore[SH101]"))
    assert run("check", str(f)).returncode == 0
