"""One shape for every rule family: every precondition names its diagnostic code, every
precondition's message is made only when it fails (lazy), every output is built one way
(`cx.tensor`), a layer's functional twin is declared with its forward rule, shared helpers live
outside the families, and a missing family stops start-up with a clear error."""
import ast
import glob
import importlib
import os
import re

import pytest

import shapehint.ops as ops_pkg
from shapehint.ops import families, registry

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


# OpContext.tensor is the one way to build an output; concrete.py builds the differential tests' inputs
BUILDS_TENSORS = {os.path.join(OPS, "context.py"), os.path.join(OPS, "concrete.py")}


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, OPS))
def test_every_output_is_built_by_the_context(path):
    if path in BUILDS_TENSORS:
        return
    tree = ast.parse(open(path, encoding="utf-8").read())
    made = [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "TensorV"]
    assert not made, f"{path}: lines {made} build a TensorV directly; use cx.tensor(dims, like=, dtype=)"


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, OPS))
def test_a_twin_is_declared_only_with_the_forward_rule(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    patched = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Attribute) and t.attr == "twin"
                       and not (isinstance(t.value, ast.Name) and t.value.id == "self") for t in n.targets)]
    assert not patched, f"{path}: lines {patched} patch a twin on; use rule.forward(twin=F)"


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def test_every_layer_with_a_functional_form_of_its_name_declares_it_as_twin():
    """nn.Linear / F.linear, nn.Conv2d / F.conv2d, nn.GLU / F.glu, ...: counted once, linked in one place."""
    registry.lookup("torch.nn.Linear")  # fills the table
    checked = 0
    for name, rule in registry.MODULES.items():
        functional = registry.RULES.get("torch.nn.functional." + _snake(name.rsplit(".", 1)[-1]))
        if functional is not None:
            checked += 1
            assert rule.twin is functional.fn, f"{name} does not declare {functional.name} as its twin"
    assert checked >= 20
    names = registry.distinct_rules()
    assert "torch.nn.Linear" not in names and "torch.nn.functional.linear" in names
    assert "torch.nn.Identity" in names  # no functional form: counted on its own


def test_a_twin_must_be_a_registered_rule():
    layer = registry.ModuleRule("torch.nn.Fake", lambda cx: None)
    with pytest.raises(TypeError, match="torch.nn.Fake: the functional twin 'helper' is not a registered"):
        def helper(cx, x):
            return x
        layer.forward(lambda cx, m, x: x, twin=helper)


def test_families_import_only_rules_from_one_another():
    """A rule may compute another family's operation (triplet loss uses pairwise_distance), but
    helpers and tables the families share live in ops/ modules of their own."""
    for path in glob.glob(os.path.join(OPS, "families", "*.py")):
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                other = importlib.import_module(f"shapehint.ops.families.{node.module}")
                for alias in node.names:
                    value = getattr(other, alias.name)
                    assert isinstance(getattr(value, "rule", None), registry.OpRule), \
                        f"{path} imports {alias.name} from the {node.module} family: not a rule (move it to ops/)"
