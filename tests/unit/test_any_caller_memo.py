"""Calls answered for any caller (analysis/anycaller.py, issue 23): a helper of another module
called with constant arguments from two analyses of one file (two roots) runs once, and answers
as running it again would; a call given a tensor, or one that asked the caller's facts, is not
answered across roots."""
import textwrap

import pytest

from shapehint.analysis import calls as calls_mod
from shapehint.analysis.anycaller import AnyCallerMemo
from shapehint.analysis.api import analyze_session
from shapehint.analysis.engine import run
from shapehint.analysis.frames import Frame
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import TRUE, gt
from shapehint.shapes.values import BoolV

HELPERS = """\
    VERSION = (2, 1)


    def available():
        major, minor = VERSION
        if major >= 2 and minor >= 1:
            return True
        return False


    def kind(name):
        return "fast" if name == "gpu" else "slow"


    def twice(x):
        return x * 2
    """

# `available()` is True: `f`'s mismatched product runs (an error), `g`'s is on the arm never taken
MAIN = """\
    import torch
    from helpers import available, kind, twice


    def f(x: torch.Tensor):
        if available():
            return torch.zeros(2, 3) @ torch.zeros(4, 5)
        return x


    def g(y: torch.Tensor):
        if not available():
            return torch.zeros(2, 3) @ torch.zeros(4, 5)
        if kind("gpu") == "fast":
            return twice(y)
        return y


    def h(z: torch.Tensor):
        if kind("gpu") != "fast":
            return torch.zeros(2, 3) @ torch.zeros(4, 5)
        return twice(z)
    """


@pytest.fixture
def program(tmp_path):
    (tmp_path / "helpers.py").write_text(textwrap.dedent(HELPERS))
    main = tmp_path / "m.py"
    main.write_text(textwrap.dedent(MAIN))
    return str(main)


def _runs(monkeypatch) -> dict:
    """qualname -> how many times its body ran."""
    ran: dict = {}
    original = calls_mod.Calls._run_function

    def counted(self, f, *args):
        ran[f.qualname] = ran.get(f.qualname, 0) + 1
        return original(self, f, *args)

    monkeypatch.setattr(calls_mod.Calls, "_run_function", counted)
    return ran


def _diags(result) -> list:
    return sorted((d.line, d.code) for d in result.diagnostics)


def test_a_constant_helper_of_another_module_runs_once_for_every_root(program, monkeypatch):
    ran = _runs(monkeypatch)
    text = open(program).read()
    session = run(text, program, records=False)
    assert session.interp.memo.any_caller.hits == 2  # available() in g, kind("gpu") in h
    assert ran["available"] == 1 and ran["kind"] == 1
    ran.clear()
    without = run(text, program, records=False, memo=False)
    assert ran["available"] == 2 and ran["kind"] == 2
    # the answers are those of running every call: f's error only
    assert _diags(session.result) == _diags(without.result) == [(7, "SH101")]


def test_a_call_given_a_tensor_is_not_answered_for_another_root(program, monkeypatch):
    ran = _runs(monkeypatch)
    run(open(program).read(), program, records=False)
    assert ran["twice"] == 2  # from g and from h, each with its own tensor


def _frame(it, root: str) -> Frame:
    return Frame({}, root, it.new_store(), {}, root=root)


def test_a_call_that_asked_the_callers_facts_is_not_remembered_for_any_caller(program):
    session = analyze_session(open(program).read(), program, records=False)
    it = session.interp
    helper = next(ns for path, ns in it.imports.loaded.items() if path.endswith("helpers.py"))
    available = helper.attrs["available"]
    memo = AnyCallerMemo()
    fr = _frame(it, "f")
    mark = memo.mark(it, available, [], {}, fr)
    assert mark is not None
    fr.facts.entails(gt(Expr.sym("n"), 0))  # what a callee reading a symbol's facts does
    memo.remember(it, available, [], {}, fr, mark, BoolV(TRUE), False, False)
    assert memo.lookup(it, available, [], {}, _frame(it, "g")) is None
    # the control: the same call without the question is remembered, and answers another root
    mark = memo.mark(it, available, [], {}, fr)
    memo.remember(it, available, [], {}, fr, mark, BoolV(TRUE), False, False)
    assert memo.lookup(it, available, [], {}, _frame(it, "g")) is not None


def test_only_constants_of_another_module_qualify(program):
    session = analyze_session(open(program).read(), program, records=False)
    it = session.interp
    fr = _frame(it, "f")
    own = next(f for f in it.functions if f.qualname == "f")
    helper = next(ns for path, ns in it.imports.loaded.items() if path.endswith("helpers.py"))
    assert AnyCallerMemo.mark(it, own, [], {}, fr) is None  # the analysed file's own function
    from shapehint.shapes.values import IntV
    assert AnyCallerMemo.mark(it, helper.attrs["twice"], [IntV(Expr.const(3))], {}, fr) is None
    memo = AnyCallerMemo()
    mark = AnyCallerMemo.mark(it, helper.attrs["available"], [], {}, fr)
    memo.remember(it, helper.attrs["available"], [], {}, fr, mark, BoolV(None), False, False)  # not a constant
    assert memo.lookup(it, helper.attrs["available"], [], {}, _frame(it, "g")) is None
