"""Optional imports and float defaults (issue 28; analysis/optional_imports.py, defaults.py).

- An import of a module the analysis' world lacks raises ImportError inside a `try` whose handler
  gets on: the code's fallback runs (tests/unit/values/fallbacks.py). Each shape claimed is
  checked against torch running the same program, where the module is just as absent.
- A float default types the object passed for it (tests/unit/values/float_defaults.py).
"""
import ast
import os
import types

import pytest

from shapehint.analysis.defaults import typed_by_defaults
from shapehint.analysis.imports import Importer
from shapehint.analysis.objects import OpaqueV
from shapehint.analysis.optional_imports import absent, catches_import_error
from shapehint.shapes.expr import Expr
from shapehint.shapes.values import FloatV, IntV

from .values import answer, path_of, program


def _values(name, function):
    return {v["name"]: v["shape"] for v in answer(name)["values"] if v["function"] == function}


def _agrees(claimed, got, env):
    assert claimed is not None and len(claimed) == len(got), (claimed, got)
    for c, g in zip(claimed, got):
        if c != "?":
            assert (eval(c, {"max": max}, env) if isinstance(c, str) else c) == g, (claimed, got)


@pytest.fixture
def fallbacks(monkeypatch):
    monkeypatch.syspath_prepend(os.path.dirname(path_of("fallbacks")))  # (its `fused_kernels`)
    return program("fallbacks")


def test_the_fallback_class_is_used_where_the_accelerator_is_absent(fallbacks):
    import torch
    got = _values("fallbacks", "Model.forward")
    assert got["normed"] == ["x.shape[0]", "x.shape[1]", 8]  # the file's own Norm keeps the size
    x = torch.randn(2, 3, 8)
    with torch.no_grad():
        out = fallbacks.Model(8)(x)
    _agrees(got["normed"], list(out["normed"].shape), {"x": x})
    # a module the workspace has may be imported: either class, so the last size is not claimed
    _agrees(got["either"], list(out["either"].shape), {"x": x})
    assert got["either"][-1] == "?"


@pytest.mark.parametrize("function", ["kernel_or_plain", "nested"])
def test_a_function_local_fallback_is_the_only_path(fallbacks, function):
    import torch
    claimed = _values("fallbacks", function).get("out")
    x = torch.randn(4, 5)
    _agrees(claimed, list(getattr(fallbacks, function)(x)["out"].shape), {"x": x})
    assert "?" not in claimed


def test_a_handler_that_reraises_keeps_the_body():
    # the module is needed there: what follows is read as having it, not as dead code
    assert _values("fallbacks", "required")["kept"] == ["x.shape[0]", "x.shape[1]"]


def test_what_is_judged_absent(tmp_path):
    (tmp_path / "nspkg").mkdir()  # a namespace package: a directory without __init__.py
    (tmp_path / "ext.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")  # an extension module
    (tmp_path / "m.py").write_text("import torch\n")
    imp = Importer(None, str(tmp_path / "m.py"), {})
    d = str(tmp_path)
    roots = frozenset({"torch"})
    assert absent("no_such_accelerator.norms", 0, imp, d, roots)
    assert absent("no_such_accelerator", 0, None, None, roots)
    for name in ("torch.nn", "os.path", "json", "pytest", "nspkg.sub", "ext"):
        assert not absent(name, 0, imp, d, roots), name
    assert not absent("no_such_module", 1, imp, d, roots)  # relative: a compiled submodule may be it
    assert not absent("", 0, imp, d, roots)


@pytest.mark.parametrize("src, catches", [
    ("except ImportError: pass", True), ("except ModuleNotFoundError: pass", True),
    ("except (KeyError, ImportError): pass", True), ("except Exception: pass", True),
    ("except: pass", True), ("except KeyError: pass", False), ("except OSError: pass", False)])
def test_which_handlers_catch_an_import_error(src, catches):
    handler = ast.parse(f"try:\n    pass\n{src}\n").body[0].handlers[0]
    assert catches_import_error(handler.type) is catches


def test_a_float_default_types_the_argument_passed_for_it():
    import torch
    got = _values("float_defaults", "Block.forward")
    config = types.SimpleNamespace(d_model=8, eps=1e-5)
    h = torch.randn(2, 3, 8)
    with torch.no_grad():
        out = program("float_defaults").Block(config)(h)
    for name in ("normed", "out"):
        _agrees(got[name], list(out[name].shape), {"h": h, "config": config})
    assert got["out"] == ["h.shape[0]", "h.shape[1]", "config.d_model"]


def test_only_a_float_default_types():
    env = {"eps": OpaqueV("config.eps"), "k": OpaqueV("config.k"), "n": OpaqueV("config.n", "int"),
           "p": OpaqueV("config.p")}
    typed_by_defaults(env, {"eps": FloatV(1e-6), "k": IntV(Expr.const(3)), "n": FloatV(0.5)})
    assert isinstance(env["eps"], FloatV) and env["eps"].value is None
    assert isinstance(env["k"], OpaqueV) and env["k"].kind is None  # may be a tuple
    assert env["n"].kind == "int"  # an int already: kept
    assert isinstance(env["p"], OpaqueV)  # no default: nothing to go by
