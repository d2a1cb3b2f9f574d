"""Functions a configuration's construction hands the instance to (docs/analysis.md, "A
configuration's defaults"): `check_settings(self)` in its `__init__`, a validation function that
reads the settings and may pick a checker from a table. Such a call may write any attribute, so
every default assigned before it was left undecided (and no name was surely absent). Followed
into the analysed code, it writes what its body writes through the parameters the instance binds
(config_bases._Chain.writes reads that body as it reads a method's), or anything where the
instance escapes.

Pure `ast` with one hook: `resolve(owner, name, item)`, the functions a name of the module of
`owner` (a `def` node of the chain or one followed) stands for — the function it is bound to, or
with `item` every value of the closed table it is bound to (choices.registry_choice's
convention) —, or None when that is not known (config_defaults.py builds it from the analysis's
globals; devicerun/builders.py never needs it)."""
from __future__ import annotations

import ast
from typing import Callable, Optional

# builtins that read an object passed to them and never write its attributes
SAFE_CALLS = frozenset({"getattr", "hasattr", "isinstance", "type", "id", "repr", "str", "print", "len"})

Resolve = Callable[[ast.FunctionDef, str, bool], Optional[tuple]]


def escapes(nodes: list, parents: dict, selves: frozenset) -> bool:
    """Whether code (`nodes`, `parents` of each) may reach the instance by another way than the
    names `selves`: one of them read as anything but an attribute's object, a call's argument, an
    identity test's operand or a formatted value (`other = self`, `return config`, `[self]`,
    `lambda: config`), after which any write through the other way is not seen."""
    for n in nodes:
        if not (isinstance(n, ast.Name) and n.id in selves and isinstance(n.ctx, ast.Load)):
            continue
        p = parents.get(n)
        if isinstance(p, ast.Starred):
            p = parents.get(p)
            if not isinstance(p, ast.Call):
                return True
        if isinstance(p, ast.Attribute) or isinstance(p, ast.FormattedValue):
            continue
        if isinstance(p, ast.Call) and p.func is not n or isinstance(p, ast.keyword) and p.arg is not None:
            continue
        if isinstance(p, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in p.ops):
            continue
        return True
    return False


def passes(call: ast.Call, selves: frozenset) -> bool:
    def is_self(a):
        return isinstance(a, ast.Name) and a.id in selves
    return any(is_self(a) or isinstance(a, ast.Starred) and is_self(a.value) for a in call.args) \
        or any(is_self(k.value) for k in call.keywords)


def bound(fn: ast.FunctionDef, call: ast.Call, selves: frozenset) -> Optional[frozenset]:
    """The parameters of `fn` that `call` binds to the instance; None when it lands in `*args`
    or `**kwargs` (a container that escapes) or its position follows a `*` spread."""
    def is_self(v):
        return isinstance(v, ast.Name) and v.id in selves
    a = fn.args
    pos = [p.arg for p in a.posonlyargs + a.args]
    out, spread = set(), False
    for k, arg in enumerate(call.args):
        spread = spread or isinstance(arg, ast.Starred)
        if is_self(arg.value if isinstance(arg, ast.Starred) else arg):
            if spread or k >= len(pos):
                return None
            out.add(pos[k])
    names = set(pos[len(a.posonlyargs):]) | {p.arg for p in a.kwonlyargs}
    for kw in call.keywords:
        if is_self(kw.value):
            if kw.arg not in names:
                return None
            out.add(kw.arg)
    return frozenset(out)


def callees(call: ast.Call, owner: Optional[ast.FunctionDef], resolve: Optional[Resolve]) -> Optional[tuple]:
    """The plain module-level functions `call` (in `owner`'s body) may run: a global name bound
    to one, or a local bound once to an item of a closed global table of them (`fn =
    TABLE.get(kind)`, `TABLE[kind]`); None when not known."""
    f = call.func
    if resolve is None or owner is None or not isinstance(f, ast.Name):
        return None
    a = owner.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}
    if f.id in params:
        return None
    stores = _binders(owner, f.id)
    if not stores:
        got = resolve(owner, f.id, False)
    else:
        table = _table_item(owner, stores)
        got = resolve(owner, table, True) if table is not None else None
    if got is None or not all(isinstance(g, ast.FunctionDef) and _plain_function(g) for g in got):
        return None
    return tuple(got)


def _binders(owner: ast.FunctionDef, name: str) -> list:
    """Every node of `owner` (its nested scopes too) that may bind `name`."""
    out = []
    for n in ast.walk(owner):
        if n is owner:
            continue
        if isinstance(n, ast.Name):
            bound_ = n.id == name and not isinstance(n.ctx, ast.Load)
        elif isinstance(n, ast.alias):
            bound_ = (n.asname or n.name.split(".")[0]) == name
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bound_ = name in n.names
        elif isinstance(n, ast.arg):
            bound_ = n.arg == name
        else:  # (a `def`, a class, `except E as name`, a match pattern's capture)
            bound_ = getattr(n, "name", None) == name or getattr(n, "rest", None) == name
        if bound_:
            out.append(n)
    return out


def _table_item(owner: ast.FunctionDef, stores: list) -> Optional[str]:
    """`T` where the name's one binding in `owner` is `name = T.get(key)` / `T.get(key, None)` /
    `T[key]` (T a name `owner` never binds: a global)."""
    if len(stores) != 1:
        return None
    assign = next((n for n in ast.walk(owner) if isinstance(n, ast.Assign) and len(n.targets) == 1
                   and n.targets[0] is stores[0]), None)
    if assign is None:
        return None
    v = assign.value
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "get" \
            and not v.keywords and (len(v.args) == 1 or len(v.args) == 2 and isinstance(v.args[1], ast.Constant)
                                    and v.args[1].value is None):
        t = v.func.value
    elif isinstance(v, ast.Subscript):
        t = v.value
    else:
        return None
    if not isinstance(t, ast.Name) or any(isinstance(n, ast.Name) and n.id == t.id and not isinstance(n.ctx, ast.Load)
                                          for n in ast.walk(owner)):
        return None
    return t.id


def _plain_function(fn: ast.FunctionDef) -> bool:
    """No decorator (which may make it another callable) and no `yield` (its body would run
    later, when iterated, perhaps after the construction)."""
    return not fn.decorator_list and not any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fn))


class Recorded:
    """`resolve`, noting each answer, so that an answer computed with it can be reused for a
    later `resolve` that answers every one of those lookups alike (config_bases remembers a
    chain's answer per process; another analysis's globals may bind a name to another function,
    or to none). The nodes are held, so their ids stay theirs."""

    def __init__(self, resolve: Optional[Resolve]):
        self.resolve, self.asked = resolve, []

    def __call__(self, owner: ast.FunctionDef, name: str, item: bool) -> Optional[tuple]:
        got = self.resolve(owner, name, item) if self.resolve is not None else None
        self.asked.append((owner, name, item, got))
        return got

    def holds_for(self, resolve: Optional[Resolve]) -> bool:
        for owner, name, item, got in self.asked:
            now = resolve(owner, name, item) if resolve is not None else None
            if (now is None) != (got is None) or now is not None and list(map(id, now)) != list(map(id, got)):
                return False
        return True
