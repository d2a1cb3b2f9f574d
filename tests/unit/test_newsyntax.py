"""Source valid for any Python from 3.8 to 3.14 parses whatever Python runs the server, positions
unchanged (frontend/newsyntax.py, used by frontend/parse.py)."""
import ast
import json
import os
import subprocess
import sys
import textwrap

import parso
import pytest

from shapehint.frontend import newsyntax
from shapehint.frontend.parse import parse_module

PEP695 = textwrap.dedent('''\
    import torch


    def first[T](xs: list[T]) -> T:
        return xs[0]


    class Box[T: int = str](object):
        def get(self, x: torch.Tensor) -> torch.Tensor:
            return x.view(-1)


    type Pair[K] = tuple[K, K]
    type Shape = tuple[int, ...]


    async def gather[
        T,
        *Ts,
        **P,
    ](y):
        return y
''')

PEP701 = textwrap.dedent('''\
    cfg = {"name": "x", "n": 3}
    a = f"{cfg["name"]} has {cfg["n"]!r:>{cfg["n"]}}"
    b = f"{
        cfg["n"]  # a comment inside a replacement field
    }"
    c = f"{'\\n'.join(['a', 'b'])}"
    d = t"template {cfg}"
    e = f'{cfg['n']}' + rt"raw {a}"
''')

EXCEPTS = textwrap.dedent('''\
    try:
        pass
    except* ValueError:
        pass
    try:
        pass
    except ValueError, TypeError:
        pass
    try:
        pass
    except (ValueError, TypeError) as err:
        pass
''')

SOURCES = {"pep695": PEP695, "pep701": PEP701, "excepts": EXCEPTS}


def _same_shape_lines(a: str, b: str) -> bool:
    return [len(x) for x in a.split("\n")] == [len(x) for x in b.split("\n")]


@pytest.mark.parametrize("name", SOURCES)
def test_parses_without_errors_on_this_host(name):
    p = parse_module(SOURCES[name])
    assert p.errors == []
    assert p.lines == SOURCES[name].split("\n")


@pytest.mark.parametrize("name", SOURCES)
@pytest.mark.parametrize("version", [(3, 10), (3, 11), (3, 12), (3, 13), (3, 14)])
def test_masking_keeps_every_line_and_column(name, version):
    assert _same_shape_lines(newsyntax.mask(SOURCES[name], version), SOURCES[name])
    assert _same_shape_lines(newsyntax.mask(SOURCES[name], version, for_parso=True), SOURCES[name])


def test_positions_of_pep695_code():
    tree = parse_module(PEP695).tree
    f = tree.body[1]
    assert isinstance(f, ast.FunctionDef) and (f.lineno, f.col_offset) == (4, 0)
    assert [(a.arg, a.lineno, a.col_offset) for a in f.args.args] == [("xs", 4, 13)]
    ret = f.body[0]
    assert (ret.lineno, ret.col_offset, ret.value.end_col_offset) == (5, 4, 16)
    box = tree.body[2]
    assert isinstance(box, ast.ClassDef) and [b.id for b in box.bases] == ["object"]
    assert (box.bases[0].lineno, box.bases[0].col_offset) == (8, 24)
    view = box.body[0].body[0].value
    assert (view.lineno, view.col_offset, view.end_col_offset) == (10, 15, 25)
    alias = tree.body[3]  # `type Pair[K] = ...`: the assignment Pair = ...
    names = [n for n in ast.walk(alias) if isinstance(n, ast.Name)] + \
        [n for n in ast.walk(tree.body[4]) if isinstance(n, ast.Name) and n.id == "Pair"]
    assert ("Pair", 13, 5) in [(n.id, n.lineno, n.col_offset) for n in names]
    g = tree.body[-1]
    assert isinstance(g, ast.AsyncFunctionDef) and [a.arg for a in g.args.args] == ["y"]
    assert (g.args.args[0].lineno, g.args.args[0].col_offset) == (21, 2)


def _positions(tree) -> set:
    """(kind, name, line, col, end) of the nodes both parses share: names, arguments,
    attributes and calls outside f/t-strings and type-parameter lists."""
    skip = set()
    for node in ast.walk(tree):
        if type(node).__name__ in ("JoinedStr", "TemplateStr", "TypeVar", "ParamSpec", "TypeVarTuple"):
            skip.update(id(n) for n in ast.walk(node))
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, (ast.Name, ast.arg, ast.Attribute, ast.Call)):
            label = getattr(node, "id", None) or getattr(node, "arg", None) or getattr(node, "attr", None) or ""
            out.add((type(node).__name__, label, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
    return out


def _interpreters():
    root = os.path.expanduser("~/.pyenv/versions")
    found = {}
    if os.path.isdir(root):
        for v in sorted(os.listdir(root)):
            exe = os.path.join(root, v, "bin", "python")
            parts = v.split(".")
            if os.path.exists(exe) and len(parts) >= 2 and parts[0] == "3" and parts[1].isdigit():
                found[(3, int(parts[1]))] = exe
    return found


INTERPRETERS = _interpreters()
NEWSYNTAX_PATH = newsyntax.__file__


def _run(exe: str, code: str, stdin: str) -> str:
    out = subprocess.run([exe, "-c", code], input=stdin, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-500:]
    return out.stdout


_NATIVE = (
    "import ast, json, sys\n"
    "src = sys.stdin.read()\n"
    "skip = set()\n"
    "tree = ast.parse(src)\n"
    "for node in ast.walk(tree):\n"
    "    if type(node).__name__ in ('JoinedStr', 'TemplateStr', 'TypeVar', 'ParamSpec', 'TypeVarTuple'):\n"
    "        skip.update(id(n) for n in ast.walk(node))\n"
    "out = []\n"
    "for node in ast.walk(tree):\n"
    "    if id(node) in skip:\n"
    "        continue\n"
    "    if isinstance(node, (ast.Name, ast.arg, ast.Attribute, ast.Call)):\n"
    "        label = getattr(node, 'id', None) or getattr(node, 'arg', None) or getattr(node, 'attr', None) or ''\n"
    "        out.append([type(node).__name__, label, node.lineno, node.col_offset, node.end_lineno, "
    "node.end_col_offset])\n"
    "print(json.dumps(out))\n")


@pytest.mark.parametrize("name,needs", [("pep695", (3, 13)), ("excepts", (3, 14)), ("pep701", (3, 14))])
def test_positions_equal_a_native_parse(name, needs):
    exe = next((e for v, e in sorted(INTERPRETERS.items()) if v >= needs), None)
    src = SOURCES[name]
    if exe is None:  # no interpreter that reads this syntax natively: compare with the hand-checked parts
        src = newsyntax.mask(src, sys.version_info[:2])
        native = _positions(ast.parse(src))
    else:
        native = {tuple(x) for x in json.loads(_run(exe, _NATIVE, src))}
    ours = _positions(parse_module(SOURCES[name]).tree)
    assert native <= ours, sorted(native - ours)


_OLD_HOST = (
    "import ast, importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('newsyntax', sys.argv[1])\n"
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
    "src = sys.stdin.read()\n"
    "ast.parse(m.mask(src))\n"
    "print('ok')\n")


@pytest.mark.parametrize("version", sorted(v for v in INTERPRETERS if v >= (3, 10)))
@pytest.mark.parametrize("name", SOURCES)
def test_every_installed_host_parses_the_masked_text(name, version):
    out = subprocess.run([INTERPRETERS[version], "-c", _OLD_HOST, NEWSYNTAX_PATH], input=SOURCES[name],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr[-500:]


def test_parso_gets_pep695_masked():
    masked = newsyntax.mask(PEP695, for_parso=True)
    module = parso.load_grammar().parse(masked)
    errors = parso.load_grammar().iter_errors(module)
    assert list(errors) == []


def test_broken_text_with_newer_syntax_reports_only_the_real_error():
    src = PEP695 + "\n\ndef broken(:\n    pass\n\n\ndef after[T](x):\n    return x\n"
    p = parse_module(src)
    assert [e.line for e in p.errors] == [PEP695.count("\n") + 3]
    names = [n.name for n in p.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert names == ["first", "Box", "gather", "after"]


def test_a_real_fstring_error_is_not_masked():
    assert [e.line for e in parse_module('x = 1\ny = f"{x!}"\n').errors] == [2]
    assert [e.line for e in parse_module('def f[T](x):\n    return f"{x!}"\n').errors] == [2]


def test_names_that_look_like_new_keywords_are_left_alone():
    src = "type = 3\nprint(type(x))\nx[type] = 1\nexcept_ = 2\n"
    assert newsyntax.mask(src, (3, 10)) == src


def test_unterminated_text_does_not_raise():
    for src in ['f"{x', 'def f[T', 'type X[', 'f"""{\n', 'except A,', "t'{", 'f"{x["a"', "x = (\n"]:
        for v in ((3, 10), (3, 11), (3, 14)):
            assert _same_shape_lines(newsyntax.mask(src, v), src)
        parse_module(src)


def test_a_pep695_model_is_analysed():
    from shapehint.analysis.api import analyze_source
    src = textwrap.dedent('''\
        import torch
        from torch import nn


        class Head[T](nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 4)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                assert x.shape == (2, 8)
                return self.fc(x)
    ''')
    out = analyze_source(src, "m.py").infer_json()
    assert [(d["line"], d["code"]) for d in out["diagnostics"] if d["severity"] == "error"] == [(12, "SH101")]


def test_pep758_handler_catches_the_tuple():
    tree = parse_module(EXCEPTS).tree
    handler = tree.body[1].handlers[0]
    assert isinstance(handler.type, ast.Tuple)
    assert [(e.id, e.lineno, e.col_offset) for e in handler.type.elts] == [("ValueError", 7, 7), ("TypeError", 7, 19)]
    from shapehint.analysis.api import analyze_source
    src = ("import torch\n\n\ndef f():\n    try:\n        y = torch.ones(2, 3) @ torch.ones(4, 5)\n"
           "    except ValueError, RuntimeError:\n        y = None\n    return y\n")
    assert analyze_source(src, "m.py").infer_json()["diagnostics"] == []
