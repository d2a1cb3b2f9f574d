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


def _self_reads_and_writes(cls_node) -> tuple:
    def on_self(n):
        return isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    written = set()
    for n in ast.walk(cls_node):
        targets = [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else getattr(n, "targets", [])
        written.update(t.attr for t in targets if on_self(t))
    return {n.attr for n in ast.walk(cls_node) if on_self(n)}, written


def test_every_part_reads_only_its_own_or_what_it_is_wired_with():
    """A part reaching for an interpreter method it did not list in `_USES` raises
    AttributeError only where that line runs, often inside a construction context, which drops it
    quietly (failed_contexts.py): caught here, before any program runs it."""
    import inspect

    from shapehint.analysis.interp import Interp
    from shapehint.analysis.sink import Sink
    it = Interp("m.py", [], Sink("m.py"))
    assert len(it.parts) >= 10
    for part in it.parts:
        cls = type(part)
        tree = ast.parse(inspect.getsource(inspect.getmodule(cls)))
        node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
        read, written = _self_reads_and_writes(node)
        own = {name for k in cls.__mro__ for name in vars(k)}
        uses = set(getattr(cls, "_USES", ()))
        assert not read - own - uses - written, (cls.__name__, sorted(read - own - uses - written))
        assert not [u for u in uses if getattr(part, u, None) is None], cls.__name__


def test_the_wiring_check_sees_a_missing_use():
    node = ast.parse("class P:\n    _USES = ('a',)\n    def f(self):\n        self.b = 1\n        return self.a(self.c)\n").body[0]
    read, written = _self_reads_and_writes(node)
    assert read - {"_USES", "f"} - {"a"} - written == {"c"}
