"""No module sets attributes on another module's objects, where the plain-results change removed
such writes (issue 22): the questions, the language server's features and question actions, the
CLI's sources and the analysis API read an analysis — through its frozen `AnalysisResult` and its
`AnalysisSession` — and never write into it (`questions/common.py` once set the interpreter's
`sink.owner`, `engine.py` put the interpreter on the result, `sources.py` and `api.py` assigned
the result's diagnostics and stats). A write is allowed on `self`/`cls`, or on a local made in the
same function by a class of the same module. And nowhere may a module assign an attribute of a
`result` (an `AnalysisResult` is frozen: a changed copy is `dataclasses.replace`)."""
from __future__ import annotations

import ast
import pathlib

import pytest

PKG = pathlib.Path(__file__).resolve().parents[2] / "server" / "shapehint"
READERS = sorted([*PKG.glob("questions/*.py"), *PKG.glob("lsp/features/*.py"), PKG / "lsp" / "questions.py",
                  PKG / "sources.py", PKG / "cli.py", PKG / "analysis" / "api.py", PKG / "analysis" / "session.py",
                  PKG / "analysis" / "result.py"])


def foreign_writes(source: str) -> list:
    """(line, target) of attribute assignments on objects the module's own classes did not make."""
    tree = ast.parse(source)
    own = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    out = []
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    scopes.append(tree)
    for scope in scopes:
        made = set()  # locals bound to an instance of one of the module's classes
        for n in ast.walk(scope):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                    and n.value.func.id in own:
                made |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        for n in _own_nodes(scope):
            for e in _attribute_targets(n):
                base = e.value
                if isinstance(base, ast.Name) and (base.id in ("self", "cls") or base.id in made):
                    continue
                out.append((n.lineno, ast.unparse(e)))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
                out.append((n.lineno, ast.unparse(n)))
    return sorted(set(out))


def result_writes(source: str) -> list:
    """(line, target) of assignments to an attribute of something named `result`."""
    out = []
    for n in ast.walk(ast.parse(source)):
        for e in _attribute_targets(n):
            base = e.value
            name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            if name == "result":
                out.append((n.lineno, ast.unparse(e)))
    return out


def _attribute_targets(n: ast.AST):
    """The `x.attr` targets an assignment statement assigns (unpacking included)."""
    targets = n.targets if isinstance(n, ast.Assign) else [n.target] \
        if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
    for t in targets:
        for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
            if isinstance(e, ast.Attribute):
                yield e


def _own_nodes(scope):
    """The nodes of a function or module, not those of the functions nested in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield n
        todo.extend(ast.iter_child_nodes(n))


@pytest.mark.parametrize("path", READERS, ids=lambda p: str(p.relative_to(PKG)))
def test_readers_of_an_analysis_write_only_their_own_objects(path):
    assert foreign_writes(path.read_text()) == []


@pytest.mark.parametrize("path", sorted(p for p in PKG.rglob("*.py") if "_shared" not in p.parts),
                         ids=lambda p: str(p.relative_to(PKG)))
def test_no_module_assigns_to_a_result(path):
    assert result_writes(path.read_text()) == []


def test_the_scan_finds_the_writes_it_forbids():
    bad = '''
class Mine:
    pass


def ensure(result, it):
    it.sink.owner = "f"
    result.diagnostics = []
    setattr(result, "stats", {})
    mine = Mine()
    mine.x = 1
    self_like = it
    self_like.y = 2
'''
    assert foreign_writes(bad) == [(7, "it.sink.owner"), (8, "result.diagnostics"),
                                   (9, "setattr(result, 'stats', {})"), (13, "self_like.y")]
    assert result_writes(bad) == [(8, "result.diagnostics")]
    assert result_writes("doc.result.comments = {}\n") == [(1, "doc.result.comments")]
