"""`hasattr(obj, "name")` of an instance of a class the analysis read, where its constructor
surely set the attribute (`if hasattr(self, "position_ids"): ids = self.position_ids[:, :n]`
after `self.register_buffer("position_ids", ...)` in `__init__`): True, so the other arm, often
one of another rank, is not joined in. Surely: a statement of the constructor's own body (not
inside an `if`, loop, `try` or `with`) writes it, no `return` comes before it, and the class
deletes no attribute of that name; a `super().__init__(...)` statement so placed stands for the
next class's constructor. Anything else (the attribute written on some paths only, a parameter's
stand-in object, a constructor cut off) is undecided: None, never False."""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import StrV, Value
from .objects import ClassObj, FuncObj, InstanceObj

# the nn.Module methods that register an attribute under the name given first
_REGISTERS = {"register_buffer", "register_parameter", "add_module", "register_module"}


def surely_has(obj: Value, name: Value) -> Optional[bool]:
    if not isinstance(obj, InstanceObj) or not isinstance(name, StrV) or not name.value:
        return None
    if obj.held_by or obj.cut or obj.unwritten or obj.many:
        return None
    return True if _init_sets(obj.cls, name.value, 0) else None


def _init_sets(cls, name: str, depth: int) -> bool:
    if not isinstance(cls, ClassObj) or depth > 16 or cls.node is None or _deletes(cls.node, name):
        return False
    init = cls.attrs.get("__init__")
    if init is None:  # inherited: the next class's constructor (the first base's)
        return bool(cls.bases) and _init_sets(cls.bases[0], name, depth + 1)
    node = init.node if isinstance(init, FuncObj) else None
    if not isinstance(node, ast.FunctionDef) or not node.args.args:
        return False
    me = node.args.args[0].arg
    for stmt in node.body:
        if _writes(stmt, me, name):
            return True
        if _super_init(stmt) and cls.bases and _init_sets(cls.bases[0], name, depth + 1):
            return True
        if any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
            return False
    return False


def _writes(stmt: ast.stmt, me: str, name: str) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) \
        and stmt.value is not None else []
    if any(isinstance(t, ast.Attribute) and t.attr == name and isinstance(t.value, ast.Name) and t.value.id == me
           for t in targets):
        return True
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _REGISTERS \
        and isinstance(call.func.value, ast.Name) and call.func.value.id == me and bool(call.args) \
        and isinstance(call.args[0], ast.Constant) and call.args[0].value == name


def _super_init(stmt: ast.stmt) -> bool:
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__" \
        and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name) \
        and call.func.value.func.id == "super"


def _deletes(node: ast.ClassDef, name: str) -> bool:
    """`del self.name`, or any `delattr(...)`, anywhere in the class."""
    for n in ast.walk(node):
        if isinstance(n, ast.Delete) and any(isinstance(t, ast.Attribute) and t.attr == name for t in n.targets):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "delattr":
            return True
    return False
