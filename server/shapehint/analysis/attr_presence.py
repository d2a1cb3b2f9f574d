"""`hasattr(obj, "name")` of an instance of a class the analysis read, where its constructor
surely set the attribute (`if hasattr(self, "position_ids"): ids = self.position_ids[:, :n]`
after `self.register_buffer("position_ids", ...)` in `__init__`): True, so the other arm, often
one of another rank, is not joined in. Surely: a statement of the constructor's own body (not
inside an `if`, loop, `try` or `with`) writes it, no `return` comes before it, and the class
deletes no attribute of that name; a `super().__init__(...)` statement so placed stands for the
next class's constructor. Anything else (the attribute written on some paths only, a parameter's
stand-in object, a constructor cut off) is undecided: None, never False.

What a class's syntax says (the names it deletes, each constructor statement's writes) is read
once per tree and kept while the tree lives: `hasattr` runs in every context of every instance,
and walking the class each time was a quarter of a transformers modeling file's analysis."""
from __future__ import annotations

import ast
import weakref
from typing import Optional

from ..frontend.walk import walk

from ..shapes.values import StrV, Value
from .absent_attrs import absent
from .objects import ClassObj, FuncObj, InstanceObj

# the nn.Module methods that register an attribute under the name given first
_REGISTERS = {"register_buffer", "register_parameter", "add_module", "register_module"}


def surely_has(obj: Value, name: Value) -> Optional[bool]:
    if not isinstance(obj, InstanceObj) or not isinstance(name, StrV) or not name.value:
        return None
    if absent(obj, name.value):  # (a configuration at its defaults: absent_attrs.py)
        return False
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
    for written, super_init, returns in _init_steps(node):
        if name in written:
            return True
        if super_init and cls.bases and _init_sets(cls.bases[0], name, depth + 1):
            return True
        if returns:
            return False
    return False


def _init_steps(node: ast.FunctionDef) -> tuple:
    """Per statement of the constructor's own body: (the names it surely writes on its first
    parameter, whether it is `super().__init__(...)`, whether a `return` is in it)."""
    out = _STEPS.get(node)
    if out is None:
        me = node.args.args[0].arg
        out = _STEPS[node] = tuple((_written(stmt, me), _super_init(stmt),
                                    any(isinstance(n, ast.Return) for n in walk(stmt))) for stmt in node.body)
    return out


def _written(stmt: ast.stmt, me: str) -> frozenset:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) \
        and stmt.value is not None else []
    names = {t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
             and t.value.id == me}
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _REGISTERS \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == me and call.args \
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        names.add(call.args[0].value)
    return frozenset(names)


def _super_init(stmt: ast.stmt) -> bool:
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__" \
        and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name) \
        and call.func.value.func.id == "super"


def _deletes(node: ast.ClassDef, name: str) -> bool:
    """`del self.name`, or any `delattr(...)`, anywhere in the class."""
    deleted = _DELETED.get(node)
    if deleted is None:
        deleted = set()
        for n in walk(node):
            if isinstance(n, ast.Delete):
                deleted.update(t.attr for t in n.targets if isinstance(t, ast.Attribute))
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "delattr":
                deleted = None  # any name
                break
        deleted = _DELETED[node] = frozenset(deleted) if deleted is not None else _ANY
    return deleted is _ANY or name in deleted


_ANY = frozenset({"*any*"})
_STEPS: "weakref.WeakKeyDictionary[ast.FunctionDef, tuple]" = weakref.WeakKeyDictionary()
_DELETED: "weakref.WeakKeyDictionary[ast.ClassDef, frozenset]" = weakref.WeakKeyDictionary()
