"""frontend/walk.walk visits exactly the nodes of `ast.walk`, in the same order (callers keep the
last class of a name, list attribute calls in walk order): compared node for node on whole modules
and on syntax with holes in its lists (`{**d}`'s None key, keyword-only arguments without default)."""
from __future__ import annotations

import ast
import glob
import os

import pytest

from shapehint.frontend.walk import walk, walk_noting_parents

SERVER = os.path.join(os.path.dirname(__file__), "..", "..", "server", "shapehint")

ODD = '''
def f(a, /, b=1, *args, c, d=2, **kw):
    x = {**kw, "k": 1}
    y = [i for i in range(3) if i if not i]
    match a:
        case {"k": v, **rest} if v:
            pass
        case [1, *others]:
            pass
    lambda *, z: z
    return f"{x!r:>{b}}"

class C(B, metaclass=M):
    a: int = 1
    @deco
    async def g(self):
        async with h() as (p, q):
            await p
        try:
            pass
        except* ValueError:
            pass
'''


def _same(tree):
    got, want = list(walk(tree)), list(ast.walk(tree))
    assert len(got) == len(want)
    assert all(a is b for a, b in zip(got, want))


def test_odd_syntax_is_walked_in_ast_walk_order():
    tree = ast.parse(ODD)
    assert any(isinstance(n, ast.Dict) and None in n.keys for n in ast.walk(tree))  # the holes are there
    _same(tree)


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(SERVER, "analysis", "*.py")))[:40])
def test_whole_modules_are_walked_in_ast_walk_order(path):
    with open(path, encoding="utf-8") as fh:
        _same(ast.parse(fh.read()))


def test_a_subtree_is_walked_alone():
    fn = ast.parse(ODD).body[0]
    _same(fn)
    assert next(walk(fn)) is fn


@pytest.mark.parametrize("source", [ODD, open(os.path.join(SERVER, "analysis", "sealed_dicts.py"), encoding="utf-8").read()])
def test_walking_with_parents_notes_each_nodes_own_parent(source):
    tree = ast.parse(source)
    parents: dict = {}
    got = list(walk_noting_parents(tree, parents))
    assert all(a is b for a, b in zip(got, ast.walk(tree))) and len(got) == len(list(ast.walk(tree)))
    want = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    assert parents.keys() == want.keys() and all(parents[c] is want[c] for c in want)
