"""The syntax scans every imported module gets, each made one pass over the tree (issue 23), give
what the straightforward scans gave: `rebound_globals` (attribute stores inside functions, a
classmethod's `cls.x` under its class, names declared `global`), `sealed_dicts` (each name's uses
in code not run, judged with its parent), `loop_counts.every_pass_whole` (kept on the loop), and
`solver/alike.py`'s key (a monomial's atoms with their powers). The references below are the
scans as they were, over a program with every case they tell apart, and over whole modules."""
from __future__ import annotations

import ast
import os
from collections import Counter

import pytest

from shapehint.analysis import lookup_writers, loop_counts, rebound_globals, sealed_dicts, written_lists
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq
from shapehint.solver import alike

PROGRAM = '''
import torch
TABLE = {}
ITEMS = []
W = torch.zeros(2)
Top.attr = 1


def make(x=[0 for cfg.in_default in range(2)]):
    global W
    W = torch.zeros(3)
    holder.width = 4
    TABLE["k"] = x
    ITEMS.append(TABLE.get("k"))
    f(*ITEMS, key=TABLE)

    def inner():
        nonlocal x
        x = 2
        other.depth = len(ITEMS)
        return lambda: TABLE.keys()
    return inner


class Block:
    size = TABLE["k"] if "k" in TABLE else 0
    Block.count = 0

    def __init__(self):
        self.w = W

    @classmethod
    def configure(cls, n):
        cls.width = n
        Block.height = n
        for i in range(n):
            if i:
                break
            cls.seen = i

    @staticmethod
    def plain(m):
        m.depth = 1


register(TABLE, ITEMS)
for k in TABLE:
    TABLE[k] = lambda: ITEMS.pop()
'''


def _old_rebound_attrs(tree) -> frozenset:
    out: set = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for fn in node.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args and any(
                        isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list):
                    me = fn.args.args[0].arg
                    out |= {(node.name, a) for n, a in _stores(fn) if n == me}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out |= _stores(node)
    return frozenset(out)


def _stores(fn) -> set:
    return {(n.value.id, n.attr) for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
            and isinstance(n.value, ast.Name)}


def _old_uses(tree, reads) -> dict:
    out: dict = {}

    def scan(root):
        parents = {}
        for node in ast.walk(root):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                for n in node.names:
                    out.setdefault(n, []).append(False)
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                out.setdefault(node.id, []).append(reads(node, parents))

    for top in tree.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scan(top)
            continue
        for node in ast.walk(top):
            if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scan(node)
            elif isinstance(node, ast.Call):
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    arg = arg.value if isinstance(arg, ast.Starred) else arg
                    if isinstance(arg, ast.Name):
                        out.setdefault(arg.id, []).append(False)
    return out


def _modules() -> list:
    """The program and a few of the analyser's own modules (classes, nested functions, lambdas)."""
    here = os.path.join(os.path.dirname(rebound_globals.__file__))
    return [PROGRAM] + [open(os.path.join(here, name), encoding="utf-8").read()
                        for name in ("calls.py", "controlflow.py", "rebound_globals.py", "sealed_dicts.py")]


def test_attribute_stores_in_functions_and_a_classmethods_class():
    got = rebound_globals.rebound_attrs(ast.parse(PROGRAM))
    assert got == {("holder", "width"), ("other", "depth"), ("self", "w"), ("Block", "width"), ("cls", "width"),
                   ("Block", "height"), ("Block", "seen"), ("cls", "seen"), ("m", "depth"), ("cfg", "in_default")}
    assert ("Top", "attr") not in got and ("Block", "count") not in got  # (top-level and class-body stores run in order)
    assert rebound_globals.rebound(ast.parse(PROGRAM)) == {"W"}


@pytest.mark.parametrize("first", ["rebound", "rebound_attrs"])
def test_the_one_pass_is_the_walk_of_each_function(first):
    for text in _modules():
        tree = ast.parse(text)
        getattr(rebound_globals, first)(tree)  # (either may run the shared pass first)
        assert rebound_globals.rebound_attrs(tree) == _old_rebound_attrs(tree)
        declared = {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}
        assert rebound_globals.rebound(tree) <= declared


@pytest.mark.parametrize("reads", [sealed_dicts.only_reads, written_lists._reads, lookup_writers._reads])
def test_uses_in_code_not_run_are_judged_as_by_two_walks(reads):
    for text in _modules():
        tree = ast.parse(text)
        assert sealed_dicts._uses_in_code_not_run(tree, reads) == _old_uses(tree, reads)
    uses = sealed_dicts._uses_in_code_not_run(ast.parse(PROGRAM), sealed_dicts.only_reads)
    assert False in uses["TABLE"] and False in uses["ITEMS"] and uses["x"][0] is False  # (`nonlocal x` first)


def test_a_loops_every_pass_is_read_once_per_loop():
    tree = ast.parse(PROGRAM)
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For)]
    # (breadth first: the module's own loop, then the classmethod's, which breaks)
    assert [loop_counts.every_pass_whole(n) for n in loops] == [True, False]
    assert [n._shapehint_whole for n in loops] == [True, False]
    assert not loop_counts.every_pass_whole(ast.parse("while x:\n    pass").body[0])


def test_a_monomials_powers_are_kept_in_the_renamed_key():
    x, y, a, b = (Expr.sym(n) for n in "xyab")

    def k(*preds):
        return alike.key(frozenset(preds), (), {}, {}, ())[0]

    assert k(eq(x * x * y, 12)) == k(eq(a * a * b, 12)) != k(eq(a * b * b * b, 12)) != k(eq(a * b, 12))
    p = eq(x * x * y + x, 12)
    alike.key(frozenset([p]), (), {}, {}, ())
    assert p.__dict__["_alike_shape"] == alike._pred(p, lambda _n: alike._ANON)  # (kept on the predicate)
    # the multiset is Counter's, whatever the atoms' order
    m = next(iter(eq(x * x * y, 12).args[0].terms))
    assert alike._monomial(m, {"x": 0, "y": 1}.__getitem__) == frozenset(Counter([0, 0, 1]).items())
