"""The notebook cell model (server/shapehint/notebook.py): masking, joining, mapping back."""
import ast

import pytest

from shapehint import notebook as nbm

from ..notebook_files import CELLS, notebook


def test_masking_keeps_every_line_and_length():
    src = ("%load_ext autoreload\n!ls -la\nfiles = !ls\nt = %timeit -o f()\nx?\n?x\nmodel.forward??\n"
           "for i in range(3):\n    %time f(i)\ns = '''\n%not a magic inside a string\n'''\n"
           "y = (10\n% 3)\nz = a != b\n# %comment")
    out = nbm.mask_cell(src)
    a, b = src.split("\n"), out.split("\n")
    assert [len(l) for l in a] == [len(l) for l in b]
    ast.parse(out)  # valid Python
    assert b[0].startswith("#") and b[1].startswith("#")
    assert b[2].startswith("files = ...") and b[3].startswith("t = ...")
    assert b[4].startswith("#") and b[5].startswith("#") and b[6].startswith("#")
    assert b[8] == "    pass# f(i)"  # the loop body stays non-empty
    assert b[10] == "%not a magic inside a string"  # inside a string: untouched
    assert b[13] == "% 3)" and b[14] == "z = a != b" and b[15] == "# %comment"


@pytest.mark.parametrize("magic,python_body", [("%%time", True), ("%%timeit -n1", True), ("%%capture out", True),
                                                ("%%bash", False), ("%%writefile m.py", False)])
def test_cell_magics(magic, python_body):
    out = nbm.mask_cell(f"{magic}\nx = 1\nif x:\n    echo hi").split("\n")
    assert out[0].startswith("#")
    if python_body:
        assert out[1] == "x = 1"
    else:
        assert all(l.lstrip().startswith(("#", "pass#")) for l in out)


def test_join_maps_lines_back_to_cells():
    joined = nbm.join(nbm.read_notebook(notebook(CELLS)))
    assert sorted(joined.starts) == [1, 2, 3, 4, 5]  # cell 0 is markdown: numbered, not joined
    ast.parse(joined.text)
    line = joined.text.split("\n").index("w = torch.zeros(4, 5)") + 1
    assert joined.locate(line) == (2, 2)
    assert joined.module_line(2, 2) == line
    assert joined.span(line, 4, line + 5, 1) == {"cell": 2, "line": 2, "col": 4, "end_line": 2,
                                                 "end_col": len("w = torch.zeros(4, 5)")}


def test_a_broken_cell_is_confined_to_itself():
    """`torch.cat([x,` never closed: without repairing the cell alone it would read on into the
    next cells; repaired, the cell's error is its own and the next cell is analysed."""
    joined = nbm.join(nbm.read_notebook(notebook(CELLS)))
    assert [(p.cell, p.line) for p in joined.problems] == [(3, 1)]
    assert "never closed" in joined.problems[0].message
    assert "z = x @ w" in joined.text
    # a statement spanning two cells is not one statement
    split = nbm.join(nbm.read_notebook(notebook([("code", "y = f(1,"), ("code", "2)\nv = 3")])))
    assert [p.cell for p in split.problems] == [0, 1]
    assert "v = 3" in split.text


def test_upto_and_cell_kinds():
    joined = nbm.join(nbm.read_notebook(notebook(CELLS)), upto=2)
    assert sorted(joined.starts) == [1, 2]
    raw = nbm.join(nbm.read_notebook(notebook([("raw", "not python("), ("code", "a = 1")])))
    assert joined.problems == [] and raw.problems == [] and sorted(raw.starts) == [1]


@pytest.mark.parametrize("text,message", [
    ("{not json", "not valid notebook JSON (line 1, column 2"),
    ("[1, 2]", "the JSON is not an object"),
    ('{"metadata": {}}', "no \"cells\" list"),
    ('{"cells": [{"source": "x"}]}', "cell 1 has no \"cell_type\""),
    ('{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1's \"source\" is not text"),
])
def test_invalid_notebooks(text, message):
    with pytest.raises(nbm.NotebookError) as e:
        nbm.read_notebook(text)
    assert message in str(e.value)


def test_nbformat3_and_language():
    nb = nbm.read_notebook('{"worksheets": [{"cells": [{"cell_type": "code", "input": ["a = 1\\n", "b = 2"]}]}],'
                           ' "metadata": {"language_info": {"name": "R"}}}')
    assert nb.cells[0].source == "a = 1\nb = 2" and nb.language == "r"


def test_infer_values_and_contexts_name_cells():
    joined = nbm.join(nbm.read_notebook(notebook([("markdown", "m"), ("code", "a = 1\nb = 2"), ("code", "c = 3")])))
    data = {"values": [{"line": 3, "col": 0, "name": "c", "function": "f", "shape": [2],
                        "contexts": [{"context": "<module>:2", "shape": [2]}, {"context": "odd", "shape": None}]},
                       {"line": 99, "col": 0, "name": "gone", "function": "f", "shape": None}],
            "diagnostics": []}
    out = nbm.map_infer(joined, data, "nb.ipynb")
    [v] = out["values"]
    assert (v["cell"], v["line"]) == (2, 1)
    assert v["contexts"] == [{"context": "<module>:2", "shape": [2], "cell": 1, "line": 2},
                             {"context": "odd", "shape": None}]
    assert [joined.locate(n) for n in range(0, 5)] == [None, (1, 1), (1, 2), (2, 1), None]


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

PIECES = ["x = torch.zeros(2, 3)", "%time f(x)", "!ls -la", "%%bash", "%%time", "y = f(x,", ")", "if x:",
          "    pass", "    %magic", "s = '''", "'''", "obj?", "??obj", "files = !ls", "def g(a):", "    return a",
          "\tbad indent", "z = [1,", "2]", "# comment", "", "print('%s' % x)", "a = b != c", "\\", "é = 1"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=6), min_size=1, max_size=5))
def test_any_cells_join_into_a_module_that_parses(cells):
    """Whatever the cells hold, masking keeps every line's length, each cell's lines stay its
    own, and the joined module parses (broken cells were repaired alone)."""
    sources = ["\n".join(c) for c in cells]
    for src in sources:
        masked = nbm.mask_cell(src)
        assert [len(l) for l in masked.split("\n")] == [len(l) for l in src.split("\n")]
    joined = nbm.join(nbm.Notebook([nbm.Cell(i, "code", s) for i, s in enumerate(sources)]))
    ast.parse(joined.text)
    for i, src in enumerate(sources):
        n = len(src.split("\n"))
        assert joined.counts[i] == n
        assert [joined.locate(joined.module_line(i, k)) for k in range(1, n + 1)] == [(i, k) for k in range(1, n + 1)]
    assert all(p.line <= joined.counts[p.cell] for p in joined.problems)
