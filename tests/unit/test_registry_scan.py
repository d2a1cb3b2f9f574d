"""registry_keys._writes: the writes of a tree that may name a registry's key, read once per tree
and process (a fresh `check` worker reads every module it loads), by a walk that skips the
leaves. It must list what a plain walk of every node lists, in the same order."""
import ast
import glob
import os

from shapehint.analysis import registry_keys

PROGRAM = '''
REG = {}
REG["plain"] = f
del REG["old"]
obj.table = {}
Reg.register("fast", g, {"deep": 1}, named="wide")
x = [a.b for a in y] + (lambda: REG.update(z=1))()


class Holder:
    REG["in_class"] = 1
    items = {"kept": 1}

    def __init__(self):
        self.entries = {}
        self.entries["own"] = 2

        def inner():
            self.more = REG.setdefault("nested", 3)
        return inner


async def later():
    await Reg.register("async", h)
'''


def _reference(tree: ast.Module) -> list:
    """The walk as written first: every node's children through ast.iter_child_nodes."""
    out: list = []
    todo = [(tree, True, None)]
    while todo:
        node, top, fn = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                todo.append((child, False, id(child)))
            elif isinstance(child, (ast.ClassDef, ast.Lambda)):
                todo.append((child, False, fn))
            else:
                registry_keys._one(child, top, fn, out)
                todo.append((child, top, fn))
    return out


def test_the_writes_of_a_small_program():
    tree = ast.parse(PROGRAM)
    got = registry_keys._writes(tree)
    init = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    inner = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "inner")
    keys = {(w[1], w[2]) for w in got if w[0] == "key"}
    assert keys == {("plain", True), ("old", True), ("in_class", False), ("own", False)}
    calls = {(w[1][0], w[1][1], w[2]) for w in got if w[0] == "call"}
    assert calls == {("register", frozenset({"fast", "deep", "named", "wide"}), True),
                     ("update", frozenset({"z"}), False), ("setdefault", frozenset({"nested"}), False),
                     ("register", frozenset({"async"}), False)}
    attrs = {(w[1], w[2], w[3]) for w in got if w[0] == "attr"}
    assert attrs == {("table", True, None), ("entries", False, id(init)), ("more", False, id(inner))}
    assert got == _reference(tree)
    assert registry_keys._writes(tree) is got, "scanned once per tree"


def test_the_same_list_as_a_walk_of_every_node_on_this_repository():
    root = os.path.join(os.path.dirname(__file__), "..", "..", "server", "shapehint")
    paths = sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True))
    assert len(paths) > 100
    total = 0
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        got = []
        registry_keys._scan(tree, got)
        assert got == _reference(tree), path
        total += len(got)
    assert total > 1000
