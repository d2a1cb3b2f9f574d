"""The analysis package's structure: no import cycle among its modules (imports inside functions
count: they hide a cycle, they do not remove it), and the interpreter's value classes live in
one module of values (objects.py), not in the files of the parts that use them."""
from __future__ import annotations

import ast
import glob
import os

ANALYSIS = os.path.join(os.path.dirname(__file__), "..", "..", "server", "shapehint", "analysis")


def _modules() -> dict:
    return {os.path.basename(p)[:-3]: ast.parse(open(p).read()) for p in glob.glob(os.path.join(ANALYSIS, "*.py"))}


def _graph() -> dict:
    mods = _modules()
    graph = {}
    for name, tree in mods.items():
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
                deps.update(t for t in targets if t in mods and t != name)
        graph[name] = deps
    return graph


def _cycle(graph: dict):
    """One cycle of the graph as a list of modules, or None."""
    state: dict = {}
    path: list = []

    def visit(v):
        state[v] = "open"
        path.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == "open":
                return path[path.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        state[v] = "done"
        path.pop()
        return None

    for v in sorted(graph):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return None


def test_no_import_cycle_among_the_analysis_modules():
    assert _cycle(_graph()) is None


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_value_classes_live_in_the_module_of_values():
    from shapehint.shapes.values import Value
    import importlib
    misplaced = []
    for name in _modules():
        mod = importlib.import_module(f"shapehint.analysis.{name}")
        for attr, obj in vars(mod).items():
            if isinstance(obj, type) and issubclass(obj, Value) and obj.__module__ == mod.__name__ \
                    and name != "objects":
                misplaced.append(f"{name}.{attr}")
    assert misplaced == []


def test_no_analysis_class_inherits_from_another():
    """The interpreter's parts are components (attributes), not base classes; value classes
    and the journal's containers (a table that also logs, `DimTable`) are the exceptions."""
    import importlib
    from shapehint.analysis.journal import JOURNALED
    from shapehint.shapes.values import Value
    inheriting = []
    for name in _modules():
        mod = importlib.import_module(f"shapehint.analysis.{name}")
        for attr, cls in vars(mod).items():
            if not isinstance(cls, type) or cls.__module__ != mod.__name__ or issubclass(cls, Value):
                continue
            for base in cls.__bases__:
                if base.__module__.startswith("shapehint.analysis.") and base not in JOURNALED:
                    inheriting.append(f"{name}.{attr}({base.__name__})")
    assert inheriting == []
