"""`shapehint check | infer` on .ipynb (DESIGN §4 notebooks): JSON, text, SARIF, errors."""
import json
import subprocess
import sys

from ..notebook_files import CELLS, notebook


def run(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "shapehint", *args], capture_output=True, text=True, cwd=cwd,
                       timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def _nb(tmp_path, cells=CELLS, name="model.ipynb"):
    f = tmp_path / name
    f.write_text(notebook(cells))
    return f


def test_check_json_carries_cells_for_diagnostics_and_related(tmp_path):
    f = _nb(tmp_path)
    p = run("check", str(f), "--format", "json")
    assert p.returncode == 1
    diags = json.loads(p.stdout)["files"][0]["diagnostics"]
    by_code = {d["code"]: d for d in diags}
    clash = by_code["SH101"]
    # `z = x @ w` is line 1 of cell 4 (0-based among all cells, the markdown cell included)
    assert (clash["cell"], clash["line"], clash["col"], clash["end_line"], clash["end_col"]) == (4, 1, 4, 1, 9)
    assert [(r["cell"], r["line"], r["col"]) for r in clash["related"]] == [(2, 1, 4), (2, 2, 4)]
    syntax = by_code["SH001"]
    assert (syntax["cell"], syntax["line"]) == (3, 1) and "never closed" in syntax["message"]


def test_check_text_numbers_cells_from_one(tmp_path):
    f = _nb(tmp_path)
    p = run("check", str(f))
    assert p.returncode == 1
    assert f"{f}:cell 5:1:5: error SH101 " in p.stdout
    assert f"    {f}:cell 3:1:5: note: " in p.stdout
    assert f"{f}:cell 4:1:1: error SH001 " in p.stdout


def test_sarif_names_the_notebook_and_the_cell(tmp_path):
    f = _nb(tmp_path)
    sarif = json.loads(run("check", str(f), "--format", "sarif").stdout)
    res = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "SH101")
    loc = res["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == str(f)
    assert loc["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 5, "endLine": 1, "endColumn": 10}
    assert res["properties"] == {"cell": 4} and loc["properties"] == {"cell": 4}
    assert [r["properties"]["cell"] for r in res["relatedLocations"]] == [2, 2]


def test_infer_values_carry_cells(tmp_path):
    f = _nb(tmp_path)
    data = json.loads(run("infer", str(f)).stdout)
    vals = {v["name"]: v for v in data["values"]}
    assert (vals["x"]["cell"], vals["x"]["line"], vals["x"]["shape"]) == (2, 1, [8, 3])
    assert (vals["w"]["cell"], vals["w"]["line"], vals["w"]["shape"]) == (2, 2, [4, 5])
    # past a broken cell and a %%time line, shapes are still there
    assert (vals["q"]["cell"], vals["q"]["line"], vals["q"]["shape"]) == (5, 2, [3])
    text = run("infer", str(f), "--format", "text").stdout
    assert f"{f}:cell 3:2:1: <module>: w = Tensor[4, 5]" in text


def test_directories_include_notebooks(tmp_path):
    _nb(tmp_path)
    (tmp_path / "ok.py").write_text("x = 1\n")
    data = json.loads(run("check", str(tmp_path), "--format", "json").stdout)
    assert sorted(f["file"].rsplit("/", 1)[1] for f in data["files"]) == ["model.ipynb", "ok.py"]


def test_a_clean_notebook_exits_zero(tmp_path):
    f = _nb(tmp_path, [("code", "import torch\nx = torch.zeros(2, 3)"), ("code", "y = x.t() @ x")])
    assert run("check", str(f)).returncode == 0
    data = json.loads(run("infer", str(f)).stdout)
    assert [(v["name"], v["cell"], v["shape"]) for v in data["values"]] == [("x", 0, [2, 3]), ("y", 1, [3, 3])]


def test_invalid_notebooks_are_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{\"cells\": [")
    for cmd in ("check", "infer"):
        p = run(cmd, str(bad))
        assert p.returncode == 2
        assert p.stderr.strip().splitlines() == [p.stderr.strip()]
        assert f"{bad}: not valid notebook JSON (line 1" in p.stderr
    other = tmp_path / "r.ipynb"
    other.write_text(notebook([("code", "x <- 1")], language="R"))
    p = run("check", str(other), str(_nb(tmp_path)))
    assert p.returncode == 2 and f"{other}: a r notebook, not Python" in p.stderr
    assert "SH101" in p.stdout  # the other file is still checked


def test_the_size_cap_counts_code_not_outputs(tmp_path):
    """A notebook's outputs (base64 plots) do not count toward max_file_size_kb; its code does."""
    import json as _json
    f = _nb(tmp_path, [("code", "import torch\nx = torch.zeros(2, 3)\ny = x @ x"), ("code", "#" * 1500)])
    nb = _json.loads(f.read_text())
    nb["cells"][0]["outputs"] = [{"output_type": "display_data", "metadata": {},
                                  "data": {"image/png": "A" * (3 * 1024 * 1024)}}]
    f.write_text(_json.dumps(nb))
    p = run("check", str(f))
    assert p.returncode == 1 and "SH101" in p.stdout and "skipped" not in p.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.shapehint]\nmax_file_size_kb = 1\n")
    p = run("check", str(f))
    assert p.returncode == 0 and "skipped, its code cells are larger than 1 KB (SH002)" in p.stderr
