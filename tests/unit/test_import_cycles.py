"""No import cycle anywhere in server/shapehint, between any two modules, function-level and
TYPE_CHECKING imports included. import-linter's `acyclic_siblings` contract sees cycles between
siblings only; this test builds the whole module graph (grimp, import-linter's own parser) and
looks for strongly connected components, so a cycle across packages (a.x -> b.y -> a.z -> a.x)
is found too. Importing a submodule also runs its package's __init__; that implicit edge is not
an import statement and is left out (the ops registry is filled through a hook for that reason)."""
import pathlib

import grimp
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def import_cycles(package: str) -> list[list[str]]:
    """Each set of modules that import one another in a cycle, sorted; [] when the graph is a DAG."""
    graph = grimp.build_graph(package, cache_dir=None)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) & graph.modules) for m in modules}
    # Tarjan's algorithm, iterative: the package is deep enough that recursion depth is a risk
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1 or node in edges[node]:
                        cycles.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(cycles)


def test_no_import_cycle_in_the_package(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "server"))
    cycles = import_cycles("shapehint")
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def write(root: pathlib.Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize("files, expected", [
    # a DAG: nothing
    ({"pkg/__init__.py": "", "pkg/a.py": "from . import b\n", "pkg/b.py": "x = 1\n"}, []),
    # across packages, through a function-level import: not siblings, so acyclic_siblings misses it
    ({"pkg/__init__.py": "", "pkg/p/__init__.py": "", "pkg/q/__init__.py": "",
      "pkg/p/x.py": "from ..q import y\n", "pkg/q/y.py": "def f():\n    from ..p import z\n",
      "pkg/p/z.py": "from . import x\n"},
     [["pkg.p.x", "pkg.p.z", "pkg.q.y"]]),
    # a TYPE_CHECKING import is an edge too
    ({"pkg/__init__.py": "", "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n",
      "pkg/b.py": "from . import a\n"},
     [["pkg.a", "pkg.b"]]),
])
def test_the_finder_reports_each_cycle(tmp_path, monkeypatch, files, expected):
    write(tmp_path, files)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("pkg") == expected
