"""Following imports into the analysed file's own package (issue 28, cause 6; analysis/imports.py,
analysis/costs.py): relative imports resolved from the importing module's own directory, absolute
imports of the file's own top-level package, `__init__` re-exports followed to the definition,
lazily; cycles, huge and broken modules; installations followed only into their own package; the
costs bounded; `check`'s cache keyed on every followed file.

Each package is written here (a small program of our own), with every shape claimed checked
against torch by running the same package."""
import importlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from shapehint.analysis import costs as costs_mod
from shapehint.analysis.api import analyze_session, analyze_source

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")

PKG = {
    "mypkg/__init__.py": "from .layers import Widen\n",
    "mypkg/activations.py": """\
        import torch.nn as nn

        from .layers.widen import Scale  # a registry whose values come from yet another module

        REG = {"relu": nn.ReLU, "tanh": nn.Tanh, "scale": Scale}
        """,
    "mypkg/layers/__init__.py": """\
        from .widen import Widen, widen_twice
        from .unused import Unused  # never read by the model: never loaded
        """,
    "mypkg/layers/widen.py": """\
        import torch
        import torch.nn as nn


        class Widen(nn.Module):
            def forward(self, x):
                return torch.cat([x, x], dim=-1)


        class Scale(nn.Module):
            def forward(self, x):
                return x * 2


        def widen_twice(x):
            return torch.cat([x, x, x, x], dim=-1)
        """,
    "mypkg/layers/unused.py": "class Unused:\n    pass\n",
    "mypkg/models/__init__.py": "",
    "mypkg/models/m.py": """\
        import os

        import torch
        import torch.nn as nn

        from ..activations import REG
        from ..layers import Widen, widen_twice
        from mypkg import Widen as Reexported


        class Model(nn.Module):
            def __init__(self, act):
                super().__init__()
                self.widen = Widen()
                self.act = REG[act]
                self.again = Reexported()

            def forward(self, x):
                a = self.widen(x)
                b = self.act()(a)
                c = widen_twice(b)
                d = self.again(c)
                return d


        def run(x, act):
            return Model(act)(x)


        out = run(torch.zeros(2, 3), os.environ["ACT"])  # a key the analysis cannot know
        """,
}


def write(root, files: dict) -> None:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(textwrap.dedent(text))


def infer(path) -> dict:
    with open(path) as fh:
        return analyze_source(fh.read(), str(path)).infer_json()


def shapes(answer: dict, function: str) -> dict:
    return {v["name"]: v["shape"] for v in answer["values"] if v["function"] == function}


def run_with_torch(root, module: str, fn, *args):
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "mypkg" or m.startswith("mypkg.")]:
            del sys.modules[name]
        return fn(importlib.import_module(module), *args)
    finally:
        sys.path.remove(str(root))


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    write(tmp_path, PKG)
    monkeypatch.setenv("ACT", "relu")
    return tmp_path


def test_definitions_and_a_registry_from_the_package_give_the_shapes_torch_gives(pkg):
    import torch
    got = shapes(infer(pkg / "mypkg/models/m.py"), "<module>")
    assert got["out"] == [2, 48]
    # whichever value of the registry (in another module, its values from a third) the key picks
    for key in ("relu", "tanh", "scale"):
        seen = run_with_torch(pkg, "mypkg.models.m", lambda m: list(m.run(torch.zeros(2, 3), key).shape))
        assert seen == got["out"], key


def test_without_following_the_package_nothing_is_claimed(pkg, monkeypatch):
    # the same file alone (its package's modules absent): the shapes above came from them
    from shapehint.analysis import imports
    monkeypatch.setattr(imports, "MAX_MODULES", 0)
    monkeypatch.setattr(imports, "MAX_DIRECT_MODULES", 0)
    assert shapes(infer(pkg / "mypkg/models/m.py"), "<module>").get("out") is None


def test_a_package_init_loads_only_the_modules_whose_names_are_read(pkg):
    path = pkg / "mypkg/models/m.py"
    session = analyze_session(path.read_text(), str(path))
    loaded = {os.path.relpath(p, pkg) for p in session.interp.imports.loaded}
    assert "mypkg/layers/widen.py" in loaded and "mypkg/layers/__init__.py" in loaded
    assert "mypkg/layers/unused.py" not in loaded  # re-exported, never read
    assert not [d for d in session.result.diagnostics if d.severity == "error"]


def test_what_imports_pull_in_never_starves_the_files_own_imports(tmp_path, monkeypatch):
    from shapehint.analysis import imports
    monkeypatch.setattr(imports, "MAX_MODULES", 2)
    write(tmp_path, {
        "hub/__init__.py": "",
        "hub/a.py": "A = 1\n", "hub/b.py": "B = 2\n", "hub/c.py": "C = 3\n",
        "hub/everything.py": "from .a import A\nfrom .b import B\nfrom .c import C\n\nALL = (A, B, C)\n",
        "hub/layers.py": "import torch\n\n\ndef twice(x):\n    return torch.cat([x, x])\n",
        "hub/m.py": """\
            import torch
            from .everything import ALL
            from .layers import twice

            y = twice(torch.zeros(2, 3))
            """,
    })
    path = tmp_path / "hub/m.py"
    session = analyze_session(path.read_text(), str(path))
    assert shapes(session.result.infer_json(), "<module>")["y"] == [4, 3]
    assert not str(tmp_path / "hub/c.py") in session.interp.imports.loaded  # the third: past the bound


def test_relative_imports_of_an_imported_module_start_from_its_own_folder(tmp_path):
    # pkg/sub/helpers.py's `from .inner import f` is pkg/sub/inner.py, not pkg/models/inner.py
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/inner.py": "import torch\n\n\ndef f(x):\n    return torch.cat([x, x], dim=0)\n",
        "pkg/sub/helpers.py": "from .inner import f\n",
        "pkg/models/__init__.py": "",
        "pkg/models/inner.py": "def f(x):\n    return x\n",  # the wrong one
        "pkg/models/m.py": "import torch\nfrom ..sub.helpers import f\n\ny = f(torch.zeros(3, 4))\n",
    })
    assert shapes(infer(tmp_path / "pkg/models/m.py"), "<module>")["y"] == [6, 4]


def test_a_cycle_of_imports_gives_unknown_names_and_no_crash(tmp_path):
    write(tmp_path, {
        "cyc/__init__.py": "",
        "cyc/a.py": "from .b import Loop, Defined\n",
        "cyc/b.py": "import torch\nfrom .a import Loop\n\n\ndef Defined(x):\n    return torch.cat([x, x])\n",
        "cyc/m.py": """\
            import torch
            from .a import Loop, Defined

            y = Defined(torch.zeros(2, 5))
            z = Loop(torch.zeros(2, 5))
            """,
    })
    got = shapes(infer(tmp_path / "cyc/m.py"), "<module>")
    assert got["y"] == [4, 5]
    assert got.get("z") is None  # Loop is only ever re-exported: unknown, never a guess


def test_a_huge_or_broken_module_leaves_its_names_unknown(tmp_path, monkeypatch):
    from shapehint.analysis import imports
    monkeypatch.setattr(imports, "MAX_BYTES", 2000)
    write(tmp_path, {
        "big/__init__.py": "",
        "big/huge.py": "import torch\n\n\ndef f(x):\n    return x\n" + "# padding\n" * 500,
        "big/broken.py": "import torch\n\n\ndef g(x):\n    return torch.cat([x, x])\n\n\ndef h(:\n",
        "big/m.py": """\
            import torch
            from .huge import f
            from .broken import g

            a = f(torch.zeros(3))
            b = g(torch.zeros(3))
            """,
    })
    ans = infer(tmp_path / "big/m.py")
    got = shapes(ans, "<module>")
    assert got.get("a") is None  # over the size bound: not read
    assert got["b"] == [6]  # what parses of a broken module is still followed
    assert not [d for d in ans["diagnostics"] if d["severity"] == "error"]


def test_an_installation_is_followed_only_into_the_files_own_package(tmp_path):
    # an unpacked wheel beside another library: `import torch` must stay torch, not this file
    write(tmp_path, {
        "site/mylib-1.0.dist-info/METADATA": "Name: mylib\n",
        "site/torch/__init__.py": "def cat(*a, **k):\n    return 0\n",
        "site/mylib/__init__.py": "",
        "site/mylib/ops.py": "import torch\n\n\ndef twice(x):\n    return torch.cat([x, x])\n",
        "site/mylib/models/__init__.py": "",
        "site/mylib/models/deep/__init__.py": "",
        "site/mylib/models/deep/m.py": """\
            import torch
            from mylib.ops import twice

            y = twice(torch.zeros(2, 3))
            z = torch.cat([torch.zeros(1, 3), torch.zeros(1, 3)])
            """,
    })
    got = shapes(infer(tmp_path / "site/mylib/models/deep/m.py"), "<module>")
    assert got["y"] == [4, 3]  # three folders up: found above the package's top
    assert got["z"] == [2, 3]  # torch's rule, not the fake torch/__init__.py


def test_an_imported_modules_top_level_calls_do_not_run_but_constructions_do(tmp_path):
    # (a call of the module's own function with constants does: test_table_entries.py)
    write(tmp_path, {
        "env/__init__.py": "",
        "env/probes.py": """\
            def probe():
                return 7
            """,
        "env/setup.py": """\
            import torch.nn as nn
            from .probes import probe


            class Table(dict):
                def __init__(self):
                    super().__init__()
                    self.width = 5


            WIDTH = probe()  # the environment at import time: not followed
            TABLE = Table()
            """,
        "env/m.py": """\
            import torch
            from .setup import WIDTH, TABLE

            a = torch.zeros(WIDTH)
            b = torch.zeros(TABLE.width)
            """,
    })
    got = shapes(infer(tmp_path / "env/m.py"), "<module>")
    assert got.get("a") in (None, ["?"]) or "7" not in str(got.get("a"))
    assert got["b"] == [5]


CAPPED = {
    "cap/__init__.py": "",
    "cap/base.py": """\
        def slow(n):
            total = 0
            for i in range(n):
                total = total + i
            return total


        def apply(fn, x):
            return fn(x)
        """,
    "cap/m.py": """\
        import torch
        from .base import apply, slow


        def heavy(x):
            for _ in range(60):  # the file's own work, called back from apply
                x = x + 1
            return torch.cat([x, x])


        y = apply(heavy, torch.zeros(3))
        s = slow(10_000)
        t = torch.zeros(s)
        """,
}


def test_a_call_into_imported_code_past_its_share_is_unknown_but_callbacks_are_not_charged(tmp_path, monkeypatch):
    monkeypatch.setattr(costs_mod, "IMPORTED_CALL_STEPS", 150)
    write(tmp_path, CAPPED)
    path = tmp_path / "cap/m.py"
    session = analyze_session(path.read_text(), str(path))
    got = shapes(session.result.infer_json(), "<module>")
    assert got["y"] == [6]  # heavy ran in full (more than 150 steps), outside apply's share
    assert got.get("t") is None or not all(isinstance(d, int) for d in got["t"])  # slow() was cut
    assert not session.result.stats["truncated"]
    assert session.interp.imports.costs.spent <= 150 + 10  # heavy's steps are not apply's


def test_the_analysis_wide_share_stops_following_imported_code(tmp_path, monkeypatch):
    monkeypatch.setattr(costs_mod, "IMPORTED_STEPS", 0)
    write(tmp_path, CAPPED)
    assert shapes(infer(tmp_path / "cap/m.py"), "<module>").get("y") is None  # apply is not followed


BUILT = {
    "built/__init__.py": "",
    "built/layers.py": """\
        import torch.nn as nn


        class ConvBlock(nn.Sequential):
            def __init__(self, cin, cout):
                super().__init__(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())
        """,
    "built/m.py": """\
        import torch
        import torch.nn as nn
        from .layers import ConvBlock


        def net(widths):
            layers, cin = [], 3
            for w in widths:
                layers.append(ConvBlock(cin, w))
                cin = w
            return nn.Sequential(*layers)


        model = net([8, 16, 16, 32, 32, 64, 64, 64])
        y = model(torch.zeros(2, 3, 16, 16))
        """,
}


def test_building_imported_layers_has_its_own_share(tmp_path, monkeypatch):
    """A factory builds many layers of an imported class: the constructions count against a share
    of their own, so the calls' share of the analysis (spent here at once) does not cut them."""
    monkeypatch.setattr(costs_mod, "IMPORTED_STEPS", 0)
    write(tmp_path, BUILT)
    assert shapes(infer(tmp_path / "built/m.py"), "<module>")["y"] == [2, 64, 16, 16]
    monkeypatch.setattr(costs_mod, "BUILDING_STEPS", 0)
    assert shapes(infer(tmp_path / "built/m.py"), "<module>").get("y") != [2, 64, 16, 16]  # (past it: unknown)


def _check(root, *args):
    env = dict(os.environ, PYTHONPATH=SERVER)
    p = subprocess.run([sys.executable, "-m", "shapehint", "check", *args, "--format", "json"], cwd=root, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout)


def test_checks_cache_is_keyed_on_the_followed_files(tmp_path):
    write(tmp_path, PKG)
    write(tmp_path, {"mypkg/models/bad.py": """\
        import torch
        from mypkg.layers import widen_twice

        y = widen_twice(torch.zeros(2, 3)) @ torch.zeros(12, 5)
        """})
    target = os.path.join("mypkg", "models", "bad.py")
    code, first = _check(tmp_path, target, "--cache-dir", "c")
    assert code == 0, first  # [2, 12] @ [12, 5] fits
    # the definition two re-exports away changes: the cached answer must not be used
    widen = tmp_path / "mypkg/layers/widen.py"
    widen.write_text(widen.read_text().replace("[x, x, x, x]", "[x, x, x]"))
    code, second = _check(tmp_path, target, "--cache-dir", "c")
    plain, third = _check(tmp_path, target, "--no-cache")
    assert second == third and code == plain == 1, second  # [2, 9] @ [12, 5] cannot work


def test_an_editor_sees_a_change_to_a_module_loaded_lazily_by_a_restored_function(tmp_path):
    from shapehint.analysis.workspace import Workspace
    write(tmp_path, {
        "ed/__init__.py": "",
        "ed/helpers.py": "from .inner import f  # read only when apply runs\n\n\ndef apply(x):\n    return f(x)\n",
        "ed/inner.py": "import torch\n\n\ndef f(x):\n    return torch.cat([x, x])\n",
    })
    text = textwrap.dedent("""\
        import torch
        from .helpers import apply


        def g():
            y = apply(torch.zeros(2, 3))
            return y


        def other():
            z = torch.zeros(4)
            return z
        """)
    path = str(tmp_path / "ed/m.py")
    ws = Workspace()

    def y_shape(result):
        return shapes(result.infer_json(), "g")["y"]

    assert y_shape(ws.update(path, text, 1)) == [4, 3]
    (tmp_path / "ed/inner.py").write_text("import torch\n\n\ndef f(x):\n    return torch.cat([x, x, x])\n")
    # an edit elsewhere: g's own text and the module body are unchanged
    edited = ws.update(path, text.replace("zeros(4)", "zeros(5)"), 2)
    scratch = analyze_source(text.replace("zeros(4)", "zeros(5)"), path)
    assert y_shape(edited) == y_shape(scratch) == [6, 3]
    assert ws.session(path).result.stats["reanalysed"]  # (and it was analysed again, not restored)
