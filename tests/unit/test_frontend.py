"""The parso frontend: valid code lowers exactly like `ast` (structure and positions), broken code
loses only the broken statement, columns are code points, errors say what is wrong where.

Normalisation: none. The lowered tree *is* `ast`'s tree for the repaired text, so f-strings,
constants and positions compare with `ast.dump(..., include_attributes=True)` unchanged; the only
difference is columns on non-ASCII lines (code points, not UTF-8 bytes), tested separately.
Incremental parsing and the random-edit property live in test_frontend_props.py.
"""
import ast
import pathlib

import pytest

from shapehint.frontend.parse import parse_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = sorted([*ROOT.glob("tests/**/*.py"), *ROOT.glob("shared/examples/**/*.py")])

SNIPPETS = [
    "import torch\nimport torch.nn as nn, os.path as osp\nfrom . import a\nfrom ..b.c import d as e, f\n"
    "from .x import (y,\n    z)\nfrom m import *\n",
    "@torch.no_grad()\n@staticmethod\ndef f(a, b: int = 1, /, c=2, *args: int, d, e: 'Tensor' = None, **kw) -> None:\n"
    "    pass\n",
    "async def g(x: Float[Tensor, 'b c h w'], y: TensorType([Dyn, 3]), *, k: int) -> 'Float[Tensor, \"b\"]':\n"
    "    await x\n    async for i in y:\n        pass\n    async with a as b, c:\n        pass\n",
    "def h(*, a, b=1): ...\ndef h2(a, /): return lambda x, *y, z=1, **w: x\n",
    "class A(nn.Module, metaclass=M, **kw):\n    '''doc'''\n    x: int = 3\n    def forward(self, x):\n"
    "        return self.conv1(x)\n",
    "a = b = c\na, *b = c\n(a, b), [c, *d] = e\nx: torch.Tensor\ny: int = 1\nz += 1\nz @= w\nz //= 2\nz **= 2\n",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n"
    "while z:\n    for i, j in x:\n        break\n    else:\n        continue\n"
    "while x:\n    pass\nelse:\n    pass\n",
    "with open(a) as f, g() as (h, i), j:\n    pass\nwith (a as b, c as d):\n    pass\n",
    "try:\n    pass\nexcept ValueError as e:\n    raise RuntimeError('x') from e\nexcept (A, B):\n    raise\n"
    "except:\n    pass\nelse:\n    pass\nfinally:\n    pass\n",
    "assert x.shape[1] == 3, f'bad {x.shape!r:>10} {y}'\ndel a, b[0], c.d\n"
    "def k():\n    global g\n    x = 1\n    def m():\n        nonlocal x\n        x = 2\n",
    "x = 1_000 + 0x1F + 0o7 + 0b1 + 1.5e-3 + 2j + 1_0.0_1\ns = 'a' 'b' \"c\" '''f\n'''\nb = b'd' rb'\\e'\n"
    "t = f'{a}{b:{c}}' f'x' 'y'\nn = None, True, False, ..., Ellipsis\n",
    "y = x[0, 1:2, ::2, 1:2:3, None, ..., :, -1]\ny = x[..., None]\ny = x[:, :, None]\ny = x[idx]\ny = x[()]\n"
    "y = x[a:b, c]\ny = x[*a]\n",
    "y = a.b.c(d, *e, k=1, **f)(g)\ny = f(x for x in y)\ny = f(*a, *b, **c, **d)\n",
    "y = a @ b // c % d ** -e << 1 >> 2 & 3 | 4 ^ 5 - +6 * ~7 / 8\ny = not a and b or c\n"
    "y = a < b <= c == d != e > f >= g is h is not i in j not in k\ny = a if b else c\n",
    "y = (1,)\ny = ()\ny = [1, *a]\ny = {1: 2, **d, 3: 4}\ny = {1, *s}\ny = {}\n",
    "y = [a for b in c if d if e for f in g]\ny = {a for a in b}\ny = {k: v for k, v in d.items()}\n"
    "y = (a async for a in b)\ny = [(z := 1), z]\n",
    "def gen():\n    yield\n    yield 1\n    x = yield from y\n    return (yield)\n",
    "match cmd:\n    case [a, *rest] if a:\n        pass\n    case {'k': v, **kw}:\n        pass\n"
    "    case Point(x=0) | None:\n        pass\n    case _:\n        pass\n",
    "x = (\n    a\n    + b\n)\nif x: y = 1; z = 2\nx = \\\n    3\n",
    "print(*args, sep='')\nlambda: (yield)\nx = [*range(3)]\n",
]


def full(tree):
    return ast.dump(tree, include_attributes=True)


def test_corpus_is_big_enough():
    assert len(CORPUS) > 100


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_valid_snippets_lower_exactly_like_ast(snippet):
    p = parse_module(snippet)
    assert p.errors == []
    assert full(p.tree) == full(ast.parse(snippet))
    compile(p.tree, "<x>", "exec")


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippets_after_a_broken_line_lower_exactly_like_ast(snippet):
    """The recovery path (parso + cut + ast) keeps everything else exact, positions included."""
    p = parse_module("x = torch.zeros(2, +\n" + snippet)
    assert [(e.line, e.col) for e in p.errors] == [(1, 0)]
    assert full(p.tree) == full(ast.parse("\n" + snippet))


def test_every_corpus_file_lowers_exactly_like_ast():
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        p = parse_module(text, str(path))
        assert p.errors == [], path
        want = ast.parse(text)
        assert ast.dump(p.tree) == ast.dump(want), path
        if text.isascii():
            assert full(p.tree) == full(want), path


def _breakable(tree, lines):
    """A one-line simple statement that shares its block with another statement."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(body) < 2:
            continue
        for st in body[1:-1]:
            line = lines[st.lineno - 1]
            if (isinstance(st, (ast.Assign, ast.Return, ast.Expr)) and st.lineno == st.end_lineno
                    and "#" not in line and ";" not in line and "\\" not in line and line.isascii()):
                return st
    return None


def test_breaking_one_statement_in_each_corpus_file_keeps_everything_else_exact():
    broken_files = 0
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        want = ast.parse(text)
        st = _breakable(want, lines)
        if st is None or not text.isascii():
            continue
        bad = list(lines)
        bad[st.lineno - 1] += " +"  # a half-typed binary operation
        p = parse_module("\n".join(bad), str(path))
        assert [e.line for e in p.errors] == [st.lineno], path
        assert "invalid syntax" in p.errors[0].message
        for block in (n.body for n in ast.walk(want) if isinstance(getattr(n, "body", None), list)):
            if st in block:
                block.remove(st)
        assert full(p.tree) == full(want), path
        broken_files += 1
    assert broken_files > 40


def test_code_point_columns_and_comments():
    p = parse_module("α = torch.zeros(2)  # é [B]\nß = 1; y = torch.zeros(2)  # [B, T, C]\n")
    names = {(n.id, n.lineno): (n.col_offset, n.end_col_offset) for n in ast.walk(p.tree) if isinstance(n, ast.Name)}
    assert names[("α", 1)] == (0, 1) and names[("torch", 1)] == (4, 9)
    assert names[("y", 2)] == (7, 8)
    call = p.tree.body[0].value
    assert (call.col_offset, call.end_col_offset) == (4, 18)
    assert p.comments == {1: "é [B]", 2: "[B, T, C]"}


def test_code_point_columns_survive_recovery():
    p = parse_module("α = (\nβ = torch.zeros(2)  # shapehint: ignore[SH101]\n")
    assign = p.tree.body[0]
    assert (assign.lineno, assign.col_offset, assign.end_col_offset) == (2, 0, 18)
    assert p.comments == {2: "shapehint: ignore[SH101]"}
    assert p.errors[0].line == 1 and "never closed" in p.errors[0].message


HALF_TYPED = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(4, 8)

    def forward(self, x):
        B = x.shape[0]
        x = self.conv1(
        y = self.fc(x)
        z = y.view(B,
        return z

    def broken(self x):
        return x

    def other(self, x):
        return x * 2
'''


def methods(p):
    cls = next(s for s in p.tree.body if isinstance(s, ast.ClassDef))
    return {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}


def test_half_typed_calls_drop_only_their_own_lines():
    p = parse_module(HALF_TYPED)
    assert [e.line for e in p.errors] == [13, 15, 18]
    assert all("SyntaxError" in e.message for e in p.errors)
    assert "'(' was never closed" in p.errors[0].message
    ms = methods(p)
    assert set(ms) == {"__init__", "forward", "other"}  # the broken def header drops `broken` only
    assert [ast.unparse(s) for s in ms["forward"].body] == ["B = x.shape[0]", "y = self.fc(x)", "return z"]
    assert ms["forward"].body[1].lineno == 14 and ms["forward"].body[2].lineno == 16
    compile(p.tree, "<x>", "exec")


@pytest.mark.parametrize("text, lines, kept, words", [
    ("def f(x):\n    a = 1\n    y = x)\n    return a\n", [3], ["a = 1", "return a"], "unmatched ')'"),
    ("def f(x):\n    a = 1\n    y = [x, (1, 2]\n    return a\n", [3], ["a = 1", "return a"], "does not match"),
    ("def f(x):\n    a = 1\n        b = 2\n    return a\n", [3], ["a = 1", "return a"], "unexpected indent"),
    ("def f(x):\n    if x:\n        a = 1\n      b = 2\n    return x\n", [4], ["if x:\n    a = 1", "return x"],
     "unindent"),
    ("def f(x):\n    if x >\n        y = 1\n    return x\n", [2], ["return x"], "`if x >`"),
    ("def f(x):\n    s = 'abc\n    return x\n", [2], ["return x"], "unterminated string"),
    ("def f(x):\n    return x\n    y = x.view(B, \n", [3], ["return x"], "never closed"),
    ("def f(x):\n    y = x.reshape(2, 3))\n    return y\n", [2], ["return y"], "unmatched ')'"),
])
def test_error_recovery_inside_a_function(text, lines, kept, words):
    p = parse_module(text)
    assert [e.line for e in p.errors] == lines
    assert words in p.errors[0].message
    f = p.tree.body[0]
    assert [ast.unparse(s) for s in f.body] == kept


def test_a_broken_def_header_drops_only_that_function():
    p = parse_module("def f(x:\n    return x\n\n\ndef g(y):\n    return y\n")
    assert [e.line for e in p.errors] == [1]
    assert [f.name for f in p.tree.body] == ["g"]


def test_compile_time_errors_are_cut_too():
    p = parse_module("x = 1\n  y = 2\nf() = 3\nreturn 4\ndef g(a, a):\n    pass\nbreak\nz = 4\n")
    assert [e.line for e in p.errors] == [2, 3, 4, 5, 7]
    assert [ast.unparse(s) for s in p.tree.body] == ["x = 1", "z = 4"]
    assert "outside function" in p.errors[2].message and "duplicate argument" in p.errors[3].message
    compile(p.tree, "<x>", "exec")


def test_the_only_statement_of_a_block_leaves_a_pass():
    p = parse_module("def f(x):\n    y = (x +\n\ndef g():\n    return 1\n")
    assert [ast.unparse(s) for s in p.tree.body[0].body] == ["pass"]
    assert [s.name for s in p.tree.body] == ["f", "g"]
    compile(p.tree, "<x>", "exec")


def test_warnings_as_errors_do_not_drop_valid_code():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = parse_module("x = 1\nif x is 1:\n    y = '\\d'\n")
    assert p.errors == [] and len(p.tree.body) == 2


def test_pathological_inputs_do_not_raise():
    for text in ["", "\n", "(" * 300, "x = " + "-" * 50000 + "1", "\x00", "def", "\ufeffx = 1", "\r\nx = 1\r",
                 "'''", "if x:\n", "@\n", "é" * 10]:
        p = parse_module(text)
        compile(p.tree, "<x>", "exec")


def test_comments_agree_with_tokenize_on_the_corpus():
    import io
    import tokenize
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        want = {t.start[0]: t.string[1:].strip() for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type == tokenize.COMMENT}
        assert parse_module(text).comments == want, path


def test_comments_beside_prefixed_strings_agree_with_tokenize():
    import io
    import tokenize
    text = ("a = rb'#1' + Rb\"#2\"  # one\nb = f'{a}#3' if u'#4' else br\"\"\"#5\n#6\"\"\"  # two\n"
            "c = r'\\\\'  # three\nd = F'x' 'y#'  # four\n")
    want = {t.start[0]: t.string[1:].strip() for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT}
    assert parse_module(text).comments == want == {1: "one", 3: "two", 4: "three", 5: "four"}


def test_a_byte_order_mark_is_one_code_point():
    p = parse_module("\ufeffx = 1\ny = (\n")
    x = p.tree.body[0].targets[0]
    assert (x.lineno, x.col_offset, x.end_col_offset) == (1, 1, 2) and p.lines[0] == "\ufeffx = 1"
    assert [e.line for e in p.errors] == [2]


def test_without_compile_errors_only_the_parser_judges():
    """The questions print no diagnostics: they skip the compiler's pass (`return` outside a
    function is a compiler error; the parser accepts it), and answer on the whole tree."""
    text = "import torch\nx = torch.zeros(2, 3)\nreturn 4\n"
    assert [e.line for e in parse_module(text).errors] == [3]
    p = parse_module(text, compile_errors=False)
    assert p.errors == [] and [ast.unparse(s) for s in p.tree.body][-1] == "return 4"
    bad = parse_module("x = (1,\n", compile_errors=False)  # a parser error is still one
    assert [e.line for e in bad.errors] == [1]


def test_the_questions_cli_answers_on_a_file_the_compiler_rejects(tmp_path, capsys):
    from shapehint import cli
    f = tmp_path / "m.py"
    f.write_text("import torch\n\n\ndef f(x: torch.Tensor):\n    assert x.shape == (2, 3)\n"
                 "    return x.view(6)\n\n\nbreak\n")
    assert cli.main(["migrate", str(f), "--format", "json"]) == 0
    assert '"status": "static"' in capsys.readouterr().out
    assert cli.main(["check", str(f)]) == 1 and "SH001" in capsys.readouterr().out
