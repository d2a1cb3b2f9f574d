"""Which attributes the generic instance forgets, and which a reconfiguration keeps
(docs/analysis.md, "A reconfiguring method keeps the numbers of the configuration").

The generic instance stands for one at any point of its life, so a plain value (an int, a
tuple, a flag, `None`) that a method other than `__init__` assigns is forgotten
(generic.forget_state): a counter, a hidden state set by `init_hidden()`. Its layers and
tensors keep their `__init__` values: the analysis describes the instance as constructed.

A method that replaces one of those layers or tensors (`self.table = nn.Parameter(...)`,
`self.register_buffer(...)`, or a call of such a method of its own) moves the whole instance
to another configuration: timm's `set_window_size(ws)` sets `self.window_size`,
`self.window_area` and the bias table together. Since the table keeps its constructed shape,
forgetting the numbers set beside it would describe a mix of two configurations that no
instance has, and cost every shape that relates them (`table[index].view(area, area, -1)`).
Such numbers keep their `__init__` values too — only when every method that assigns them is a
reconfiguration: a counter `forward` also bumps is still forgotten. A method `forward` calls
(directly or through its own calls) is never a reconfiguration: it runs on every input.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk
from ..shapes.values import BoolV, DictV, FloatV, IntV, ListV, ModuleV, NoneV, TensorV, TupleV, UnknownV
from .objects import ChoiceV, ClassObj, FuncObj, InstanceObj

_BODIES = ("body", "orelse", "finalbody", "handlers")  # the statement lists of a statement
_REGISTERS = ("register_buffer", "register_parameter")


def forgotten(cls: ClassObj, inst: InstanceObj) -> set:
    """Attributes of `inst` (the generic instance of `cls`, after `__init__`) that other methods
    assign and that no reconfiguration accounts for."""
    methods = _methods(cls)
    per = [(name, self_targets(fn)) for name, fn in methods if name != "__init__"]
    assigned = set().union(*(t for _, t in per))
    if not assigned:
        return assigned
    calls: dict = {}
    for name, fn in methods:
        calls[name] = calls.get(name, frozenset()) | _self_calls(fn)
    held = {n for n in assigned if _holds_state(inst.attrs.get(n))}
    runtime = _reached_from(calls, "forward")
    reconf = _reconfigurations(per, calls, held, runtime)
    fns = dict(methods)
    return {n for n in assigned if any(n in targets and m not in reconf for m, targets in per)
            and not _switch(n, inst.attrs.get(n), [fns[m] for m, targets in per if n in targets], runtime)}


STATE = (NoneV, IntV, BoolV, FloatV, ListV, DictV, TupleV)  # values other methods commonly change


def forget_held(v, cls: Optional[ClassObj] = None) -> list:
    """In `v` (an instance of `cls`) and the objects it holds, the attributes that `forgotten`
    names and that hold state, unknown (generic.forget_state); the instances changed."""
    changed = []
    for held in held_objects(v):
        c = cls if held is v and cls is not None else held.cls
        grown = _grown(c)
        replaced = _replaced(c)
        for name in forgotten(c, held) | grown | replaced:
            old = held.attrs[name] if name in held.attrs else held.cls.lookup(name)  # (or the class's own)
            # (an empty tensor that another method assigns is a placeholder: ultralytics'
            # `anchors = torch.empty(0)`, made for the input's shape on the first call; a
            # tensor a method makes from itself, `self.rows = torch.cat([self.rows, h], 1)`,
            # is as long as the calls made it, though `__init__` gave it a length; a tensor or
            # layer a method of an object that is no layer replaces is what the last call gave it)
            if isinstance(old, STATE) or name in replaced and (isinstance(old, TensorV) or _holds_state(old)) \
                    or isinstance(old, TensorV) and (name in grown or any(d.value == 0 for d in old.shape.dims)):
                held.attrs[name] = UnknownV(f"self.{name}")
                changed.append(held)
    return changed


def _grown(cls: ClassObj) -> frozenset:
    """Attributes a method other than `__init__` assigns from their own value (`self.x += y`,
    `self.x = f(self.x, ...)`) as it runs on inputs: a method of an object that is no layer (a
    store's `update`, called from the layers' `forward`), or one a layer's `forward` reaches — a
    layer's other methods reconfigure it (`set_window_size` resizing the bias table it had)."""
    cached = getattr(cls.node, "_shapehint_grown", None)  # trees are never changed
    if cached is None:
        methods = _methods(cls)
        runtime = None
        if cls.is_module():
            calls: dict = {}
            for name, fn in methods:
                calls[name] = calls.get(name, frozenset()) | _self_calls(fn)
            runtime = _reached_from(calls, "forward")
        cached = frozenset(n for name, fn in methods if name != "__init__" and (runtime is None or name in runtime)
                           for n in _grown_in(fn))
        cls.node._shapehint_grown = cached
    return cached


def _replaced(cls: ClassObj) -> frozenset:
    """Attributes a method other than `__init__` of an object that is no layer assigns (a page's
    `fill(x)` storing `self.buf = x`, a holder's `swap(n)` storing `self.net = nn.Linear(8, n)`):
    such a method runs on inputs, at any point of the object's life, so the tensor or layer it
    stores is not the one `__init__` made — no reconfiguration, which only a layer's methods
    `forward` does not reach are (its parameters keep their shapes)."""
    if cls.is_module():
        return frozenset()
    return frozenset(_state_names(cls))


def _grown_in(fn) -> set:
    me = _me(fn)
    out = set()
    for n in walk(fn):
        if isinstance(n, ast.AugAssign):
            targets, reads = [n.target], None
        elif isinstance(n, ast.Assign):
            targets, reads = n.targets, {e.attr for e in walk(n.value) if _on(e, me)}
        else:
            continue
        out |= {t.attr for t in targets if _on(t, me) and (reads is None or t.attr in reads)}
    return out


def _on(e, me: str) -> bool:
    """`e` is `<me>.<attr>`."""
    return isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me


def _switch(name: str, v, setters: list, runtime: set) -> bool:
    """`name` is a switch the instance is constructed with off or on (`self.use_ckpt = False`,
    a constant in `__init__`), that only setters `forward` never reaches turn, to the value their
    caller passes (`def set_ckpt(self, enable=True): self.use_ckpt = enable`): the instance as
    constructed has the constant, as its layers keep theirs past a `reset_classifier()`."""
    if not (isinstance(v, BoolV) and v.pred is not None and (v.pred.is_true or v.pred.is_false)):
        return False
    return all(fn.name not in runtime and _set_from_parameter(fn, name) for fn in setters)


def _set_from_parameter(fn, name: str) -> bool:
    """Every assignment of `self.<name>` in `fn` is a plain `self.<name> = <a parameter of fn>`."""
    me = _me(fn)
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args[1:] + fn.args.kwonlyargs}
    for n in walk(fn):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else ()
        if _setattr_on(n, me) == name:
            return False
        for t in targets:
            hits = [e for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
                    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me and e.attr == name]
            if hits and not (isinstance(n, ast.Assign) and isinstance(t, ast.Attribute) and
                             isinstance(n.value, ast.Name) and n.value.id in params):
                return False
    return True


def _holds_state(v) -> bool:
    """A layer, or a tensor that is not a placeholder (`torch.empty(0)`, made on the first call)."""
    if isinstance(v, ModuleV) or isinstance(v, InstanceObj) and v.cls.is_module():
        return True
    return isinstance(v, TensorV) and v.shape.dims is not None and \
        not any(d.value == 0 for d in v.shape.dims)


def _reconfigurations(per: list, calls: dict, held: set, runtime: set) -> set:
    out = {m for m, targets in per if m not in runtime and (targets & held or calls[m] & set(_REGISTERS))}
    grew = True
    while grew:  # a method that calls a reconfiguration of its own is one (`self._init_buffers()`)
        more = {m for m, _ in per if m not in runtime and m not in out and calls[m] & out}
        out |= more
        grew = bool(more)
    return out


def _reached_from(calls: dict, root: str) -> set:
    out, todo = set(), [root]
    while todo:
        m = todo.pop()
        if m in out or m not in calls:
            continue
        out.add(m)
        todo.extend(calls[m])
    return out


def call_kinds(names: list, env: dict) -> tuple:
    """The kind of each argument of a call, as `sink._value` compares a call that lost a record
    with those that observed it ("alike arguments, one path"). An object counts with the values of
    the attributes methods other than `__init__` assign, its own and those of the objects it holds
    (a cache's list of layers): one object before and after such a method ran takes different
    paths though its arguments are alike (a cache's `out = self.keys` is k's shape on the first
    update, twice its length on the second) — the receiver or not (`cache.update(k, i)` in a block
    given the cache). An object counts with its class, a function with its name: a call given
    another registry, or another function to call, runs other code, whose result the calls that
    observed one need not share."""
    kinds = [_kind(env.get(n)) for n in names]
    for i, n in enumerate(names):
        state = _held_state(env.get(n), _HOLD_DEPTH, set())
        if state:
            kinds[i] += repr(state)
    return tuple(kinds)


_HOLD_DEPTH = 3  # objects within objects: a cache, its list of layers, a layer


def _held_state(v, depth: int, seen: set) -> tuple:
    """The state (`_state_names`) of `v` and of the objects its attributes hold, in a fixed order."""
    return tuple(_state_kind(o.attrs.get(n)) for o in held_objects(v, depth, seen) for n in _state_names(o.cls))


def held_objects(v, depth: int = _HOLD_DEPTH, seen: Optional[set] = None):
    """`v` if it is an instance of a class of the program, then the instances its attributes
    hold (through lists, tuples, dicts and choices), `depth` objects deep, in a fixed order."""
    seen = set() if seen is None else seen
    if depth < 0 or id(v) in seen:
        return
    if isinstance(v, (ListV, TupleV, ChoiceV, DictV)):
        seen.add(id(v))
        items = v.options if isinstance(v, ChoiceV) else v.items.values() if isinstance(v, DictV) else \
            v.items if v.items is not None else (v.elem,) if isinstance(v, ListV) else ()
        for it in items:  # (a list's items built by an undecided `if`: a choice)
            yield from held_objects(it, depth, seen)
        return
    if not (isinstance(v, InstanceObj) and isinstance(v.cls, ClassObj) and v.cls.node is not None):
        return
    seen.add(id(v))
    yield v
    state = _state_names(v.cls)  # (what a method replaces is not what the instance holds)
    for n in sorted(v.attrs):
        if n not in state:
            yield from held_objects(v.attrs[n], depth - 1, seen)


def _kind(v) -> str:
    if isinstance(v, InstanceObj) and isinstance(v.cls, ClassObj):
        return f"InstanceObj:{v.cls.qualname}"
    if isinstance(v, FuncObj):
        return f"FuncObj:{v.qualname}"
    return type(v).__name__


def _state_names(cls: ClassObj) -> tuple:
    cached = getattr(cls.node, "_shapehint_state_names", None)  # trees are never changed
    if cached is None:
        cached = tuple(sorted(set().union(*(self_targets(fn) for n, fn in _methods(cls) if n != "__init__"))))
        cls.node._shapehint_state_names = cached
    return cached


def _state_kind(v) -> str:
    if isinstance(v, TensorV):
        return str(v.shape)
    if isinstance(v, (IntV, BoolV)):
        return str(v)
    return type(v).__name__


def _methods(cls: ClassObj) -> list:
    """(name, definition) of the methods of `cls` and its bases (overridden ones too: `super()`
    reaches them)."""
    out: list = []
    seen: set = set()
    todo = [cls]
    while todo:
        c = todo.pop()
        if not isinstance(c, ClassObj) or id(c) in seen or c.node is None:
            continue
        seen.add(id(c))
        todo.extend(c.bases)
        out.extend((st.name, st) for st in c.node.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return out


def _me(fn) -> str:
    return fn.args.args[0].arg if fn.args.args else "self"


def _self_calls(fn) -> frozenset:
    """Names `N` of the calls `self.N(...)` in `fn`."""
    cached = getattr(fn, "_shapehint_self_calls", None)  # trees are never changed
    if cached is not None:
        return cached
    me = _me(fn)
    out = {n.func.attr for n in walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
           and isinstance(n.func.value, ast.Name) and n.func.value.id == me}
    fn._shapehint_self_calls = frozenset(out)
    return fn._shapehint_self_calls


def _setattr_on(n, me: str) -> Optional[str]:
    """The name a statement `setattr(<me>, "name", v)` stores, as `<me>.name = v` does."""
    call = n.value if isinstance(n, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "setattr" and \
            len(call.args) == 3 and isinstance(call.args[0], ast.Name) and call.args[0].id == me and \
            isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        return call.args[1].value
    return None


def self_targets(fn) -> frozenset:
    """Attributes `self.X` that `fn` assigns (`setattr(self, "X", ...)` too)."""
    cached = getattr(fn, "_shapehint_self_targets", None)  # trees are never changed
    if cached is not None:
        return cached
    me = _me(fn)
    out = set()
    todo = list(fn.body)
    while todo:  # statements only: an assignment is one, and expressions are most of the nodes
        n = todo.pop()
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else ()
        stored = _setattr_on(n, me)
        if stored is not None:
            out.add(stored)
        for t in targets:
            for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me:
                    out.add(e.attr)
        for field in _BODIES:
            todo.extend(getattr(n, field, ()))
        for case in getattr(n, "cases", ()):
            todo.extend(case.body)
    fn._shapehint_self_targets = frozenset(out)
    return fn._shapehint_self_targets
