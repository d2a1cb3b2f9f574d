"""The parso frontend: valid code lowers exactly like `ast`, broken code loses only the broken
statement, columns are code points, incremental parsing equals a fresh parse, nothing raises."""
import ast
import pathlib

from hypothesis import HealthCheck, given, settings, strategies as st

from shapehint.frontend.parse import IncrementalParser, parse_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = sorted([*ROOT.glob("shared/examples/*.py"), *ROOT.glob("tests/cases/*.py"),
                 *ROOT.glob("tests/questions/programs/*.py"), *ROOT.glob("server/shapehint/analysis/*.py")])


def positions(tree):
    return [(type(n).__name__, n.lineno, n.col_offset, n.end_lineno, n.end_col_offset)
            for n in ast.walk(tree) if hasattr(n, "lineno")]


def test_valid_files_lower_exactly_like_ast():
    assert len(CORPUS) > 40
    for path in CORPUS:
        text = path.read_text()
        p = parse_module(text, str(path))
        assert p.errors == [], path
        want = ast.parse(text)
        assert ast.dump(p.tree) == ast.dump(want), path
        if text.isascii():
            assert positions(p.tree) == positions(want), path


def test_code_point_columns_and_comments():
    p = parse_module("α = 1; y = torch.zeros(2)  # é [B]\n")
    names = {n.id: (n.col_offset, n.end_col_offset) for n in ast.walk(p.tree) if isinstance(n, ast.Name)}
    assert names["α"] == (0, 1) and names["y"] == (7, 8)
    assert p.comments == {1: "é [B]"}


HALF_TYPED = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward(self, x):
        y = self.fc(x)
        z = y.view(2,

    def other(self, x):
        return x * 2
'''


def test_a_broken_statement_keeps_the_rest_of_the_function_and_the_class():
    p = parse_module(HALF_TYPED)
    assert [e.line for e in p.errors] == [12]
    cls = p.tree.body[2]
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    assert set(methods) == {"__init__", "forward", "other"}
    assert isinstance(methods["forward"].body[0], ast.Assign)  # y = self.fc(x) survives


def test_a_broken_def_header_drops_only_that_function():
    p = parse_module("def f(x:\n    return x\n\n\ndef g(y):\n    return y\n")
    assert [e.line for e in p.errors] == [1]
    assert [f.name for f in p.tree.body if isinstance(f, ast.FunctionDef)] == ["g"]


def test_compile_time_errors_and_stray_indentation():
    p = parse_module("x = 1\n  y = 2\nf() = 3\nz = 4\n")
    assert [e.line for e in p.errors] == [2, 3]
    assert [t.id for s in p.tree.body if isinstance(s, ast.Assign) for t in s.targets] == ["x", "z"]


def test_incremental_equals_fresh():
    inc = IncrementalParser()
    text = HALF_TYPED.replace("z = y.view(2,", "z = y.view(2, 4)")
    for k in range(6):
        text = text.replace("return x * 2", f"return x * {k + 3}") if k % 2 else text + f"\nv{k} = {k}\n"
        a, b = inc.parse(text, "/tmp/inc.py"), parse_module(text)
        assert ast.dump(a.tree, include_attributes=True) == ast.dump(b.tree, include_attributes=True)
        assert a.errors == b.errors


TEXTS = [p.read_text() for p in CORPUS[:20]]


@st.composite
def mutated(draw):
    lines = draw(st.sampled_from(TEXTS)).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["cut", "dup", "swap", "junk"]))
        if kind == "cut":
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines[i] += draw(st.text(max_size=4)) + draw(st.sampled_from(["(", ")", "]", ":", "\t", "é"]))
    return "\n".join(lines)


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_never_raises_and_always_gives_a_valid_tree(text):
    p = parse_module(text)
    ast.parse(ast.unparse(p.tree))  # a well-formed module (compile-time-only rules aside)
    assert len(p.lines) == len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
