"""One shape for every rule family: every precondition names its diagnostic code, every
precondition's message is made only when it fails (lazy), shared helpers live outside the
families, and a missing family stops start-up with a clear error."""
import ast
import glob
import os

import pytest

import shapehint.ops as ops_pkg
from shapehint.ops import families

OPS = os.path.dirname(ops_pkg.__file__)
FILES = sorted(glob.glob(os.path.join(OPS, "**", "*.py"), recursive=True))
CODE_AT = {"require": 2, "require_eq": 3, "fail": 1}
MESSAGE_AT = {"require": 1, "require_eq": 2}


def _calls(path):
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CODE_AT:
            yield node


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, OPS))
def test_every_precondition_names_its_code(path):
    missing = [n.lineno for n in _calls(path)
               if len(n.args) <= CODE_AT[n.func.attr] and not any(k.arg == "code" for k in n.keywords)]
    assert not missing, f"{path}: lines {missing} leave the diagnostic code to the default"


def _eager(node, fn_scope) -> bool:
    """A message argument built before the check: an f-string or a name bound to one."""
    msg = node.args[MESSAGE_AT[node.func.attr]] if len(node.args) > MESSAGE_AT[node.func.attr] else None
    if isinstance(msg, ast.JoinedStr):
        return True
    if isinstance(msg, ast.Name):
        return any(isinstance(a, ast.Assign) and any(isinstance(t, ast.Name) and t.id == msg.id for t in a.targets)
                   and isinstance(a.value, (ast.JoinedStr, ast.BinOp)) for a in ast.walk(fn_scope))
    return False


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, OPS))
def test_every_precondition_message_is_lazy(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    eager = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in MESSAGE_AT and _eager(node, fn):
                    eager.append(node.lineno)
    assert not eager, f"{path}: lines {sorted(set(eager))} build a precondition's message eagerly"


SHARED = {"arguments.py": {"int_args", "opt_int", "need_int", "positive"},
          "windows.py": {"split_batch", "window_out", "require_window"}}


def test_shared_helpers_live_in_a_module_of_their_own():
    """Argument readers and window geometry are defined once, outside any family, and no family
    reaches into the convolution family for them."""
    for path in glob.glob(os.path.join(OPS, "families", "*.py")):
        tree = ast.parse(open(path, encoding="utf-8").read())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert not defined & set().union(*SHARED.values()), path
        assert not any(isinstance(n, ast.ImportFrom) and n.level == 1 and n.module == "conv" for n in ast.walk(tree)), path
    for module, names in SHARED.items():
        tree = ast.parse(open(os.path.join(OPS, module), encoding="utf-8").read())
        assert names <= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_a_missing_family_stops_start_up_with_a_clear_error():
    with pytest.raises(ImportError, match="operator family 'no_such_family'"):
        families.load(["no_such_family"])
