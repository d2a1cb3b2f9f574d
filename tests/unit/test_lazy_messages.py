"""A precondition's message is made only when the precondition fails: printing the shapes it
names costs more than checking them, and most preconditions hold (ops/context.py `Message`)."""
from __future__ import annotations

import ast
import glob
import os

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.ops.concrete import ConcreteContext
from shapehint.ops.context import OpFailed
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq

OPS = os.path.join(os.path.dirname(__file__), "..", "..", "server", "shapehint", "ops")


def _never():
    raise AssertionError("the message was made though the precondition holds")


def test_a_holding_precondition_never_makes_its_message():
    cx = ConcreteContext("op")
    cx.require(eq(Expr.const(3), Expr.const(3)), _never)
    cx.require_eq(Expr.const(2), Expr.const(2), _never)


def test_a_failing_precondition_carries_the_made_message():
    with pytest.raises(OpFailed) as err:
        ConcreteContext("op").require(eq(Expr.const(3), Expr.const(4)), lambda: "3 is not 4", "SH101")
    assert err.value.message == "3 is not 4" and str(err.value) == "3 is not 4" and err.value.code == "SH101"


def test_the_analysis_reports_a_made_message():
    src = "import torch\nx = torch.zeros(2, 3)\ny = x.view(4, 2)\n"
    [d] = [d for d in analyze_source(src, "m.py").diagnostics if d.code == "SH103"]
    assert d.message == "x.view(4, 2): shape [4, 2] needs 8 elements, but x [2, 3] has 6"


def _eager_messages(path: str) -> list:
    """`cx.require(pred, f"...")` calls whose message is formatted before the check."""
    out = []
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("require", "require_eq"):
            k = 1 if node.func.attr == "require" else 2
            msg = node.args[k] if len(node.args) > k else None
            if msg is not None and any(isinstance(n, ast.JoinedStr) for n in ast.walk(msg)) and \
                    not isinstance(msg, ast.Lambda):
                out.append(f"{os.path.basename(path)}:{node.lineno}")
    return out


def test_no_rule_formats_a_message_before_its_check():
    paths = glob.glob(os.path.join(OPS, "**", "*.py"), recursive=True)
    assert len(paths) > 20
    assert [m for p in paths for m in _eager_messages(p)] == []
