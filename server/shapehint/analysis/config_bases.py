"""The attributes a configuration's `__init__` sets to its defaults, its base classes' included
(docs/analysis.md, "A configuration's defaults").

A configuration class hands what it does not take itself to its base's `__init__`
(`super().__init__(**kwargs)`), which sets attributes from its own keyword defaults
(`is_decoder: bool = False` ... `self.is_decoder = is_decoder`) or from the keywords it pops
(`self.flag = kwargs.pop("flag", False)`). A model reads them like the class's own
(`if config.is_decoder:`). An attribute is decided only where nothing the construction runs after
its assignment may write it again: later statements, the base's `__init__` a later
`super().__init__(...)` runs (so a base that writes what the class set before calling it wins,
and one that does not leaves it), the methods and property setters they call on `self`, and
`setattr(self, name, ...)` loops over names known (a method's literal table, or the keywords that
reach the `**kwargs` they iterate: only those the chain names, devicerun/builders.py refuses any
other). A name a class of the chain defines (a property, a method, a descriptor) or names in its
class-level tables (a `__setattr__` may redirect it) is never decided, nor a parameter the
calling `super().__init__(...)` passes. The class the build calls also has its own `None`
defaults stored as they came decided (`none_params`: builders.py refuses another value), and the
names an instance may hold at all are known where every write is followed (`present_names`: any
other is absent, absent_attrs.py).

Pure `ast` over the chain of class nodes (the configuration's class, then its single base, and so
on): the analysis builds it from its classes, devicerun/builders.py from the files, and both read
the same rules here.
"""
from __future__ import annotations

import ast
from typing import Optional
from ..frontend.params import defaulted
from ..frontend.walk import walk_noting_parents
from .config_derived import Derived, derived
from .config_calls import SAFE_CALLS, Recorded, Resolve, bound as bound_params, callees, escapes, passes

_SELF = "self"
_SELVES = frozenset({_SELF})


def context_kind(v) -> bool:
    """A default the construction context decides: a bool, a string, a float, an int below 1."""
    return isinstance(v, (bool, str, float)) or type(v) is int and v < 1


def none_params(init: ast.FunctionDef) -> set:
    """The parameters of a configuration's own `__init__` (the class a build calls) defaulting to
    `None` that it stores as they came (`self.head_dim = head_dim`, never rebound): the context
    holds `None` for them (a model's `getattr(config, "head_dim", None) or ...` is then decided),
    so devicerun/builders.py refuses a build passing one anything else. Only the called class's:
    a base's `None` may be set by a keyword forwarded through `**kwargs`."""
    rebound = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {k for k, v in param_defaults(init).items() if v is None and k not in rebound}


def own_init(cls: ast.ClassDef) -> Optional[ast.FunctionDef]:
    return next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)


def param_defaults(init: ast.FunctionDef) -> dict:
    """name -> default of every parameter of `init` whose default is a constant (any value)."""
    pairs = defaulted(init)
    return {p.arg: d.value for p, d in pairs if isinstance(d, ast.Constant)}


def _params(init: ast.FunctionDef) -> list:
    a = init.args
    return [p.arg for p in (a.posonlyargs + a.args)[1:] + a.kwonlyargs]


def super_init(call) -> Optional[ast.Call]:
    """`call` when it is `super().__init__(...)`."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__":
        s = call.func.value
        if isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id == "super" and not s.args:
            return call
    return None


def mro(cls, bases_of) -> Optional[list]:
    """The method resolution order (C3) of `cls`, whose bases `bases_of` gives (None where one
    is not seen), or None."""
    bases = bases_of(cls)
    if bases is None:
        return None
    seqs = [mro(b, bases_of) for b in bases]
    if any(q is None for q in seqs):
        return None
    seqs = [list(q) for q in seqs] + [list(bases)]
    out = [cls]
    while any(seqs):
        head = next((q[0] for q in seqs if q and not any(q[0] is x for r in seqs for x in r[1:])), None)
        if head is None:
            return None
        out.append(head)
        seqs = [q[1:] if q and q[0] is head else q for q in seqs]
    return out


def _plain(fn: ast.FunctionDef) -> bool:
    """A method whose first parameter is `self` and that no decorator wraps (a property's own
    `@property` / `@x.setter` aside)."""
    a = fn.args
    first = (a.posonlyargs + a.args)[:1]
    return bool(first) and first[0].arg == _SELF and all(
        isinstance(d, ast.Name) and d.id == "property" or isinstance(d, ast.Attribute) and d.attr == "setter"
        for d in fn.decorator_list)


def _is_self(n, selves: frozenset = _SELVES) -> bool:
    return isinstance(n, ast.Name) and n.id in selves


def _kw_calls(init: ast.FunctionDef, kw: Optional[str]) -> list:
    """`(method, name, default)` of each `KW.pop(NAME, ...)` / `KW.get(NAME, ...)` on `init`'s
    `**KW` with a constant name (default: the constant's value, or `...` when not a constant)."""
    out = []
    for n in ast.walk(init):
        if kw and isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("pop", "get") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == kw and n.args \
                and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
            d = n.args[1] if len(n.args) > 1 else ast.Constant(None)
            out.append((n.func.attr, n.args[0].value, d.value if isinstance(d, ast.Constant) else ...))
    return out


def _kwargs_clean(init: ast.FunctionDef) -> bool:
    """Whether `init`'s `**KW` is only read by `pop`/`get`, spread (`**KW`) or iterated: nothing
    adds a keyword the build did not pass."""
    kw = init.args.kwarg.arg if init.args.kwarg else None
    if kw is None:
        return True
    ok = set()
    for n in ast.walk(init):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == kw and n.func.attr in ("items", "keys", "values", "pop", "get"):
            ok.add(id(n.func.value))
        elif isinstance(n, ast.keyword) and n.arg is None and isinstance(n.value, ast.Name):
            ok.add(id(n.value))
        elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Name):
            ok.add(id(n.iter))
        elif isinstance(n, ast.Compare) and all(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops) \
                and isinstance(n.comparators[-1], ast.Name):
            ok.add(id(n.comparators[-1]))  # (`"name" in kwargs`: a read)
    return all(id(n) in ok for n in ast.walk(init) if isinstance(n, ast.Name) and n.id == kw
               and isinstance(n.ctx, ast.Load))


class _Chain:
    """The configuration's class and its bases in their method resolution order (`complete`:
    all of it; else a class not seen may follow)."""

    def __init__(self, classes: list, complete: bool = True, resolve: Optional[Resolve] = None):
        self.classes, self.complete, self.resolve = classes, complete, resolve
        inits = [i for i in map(own_init, classes) if i is not None]
        self.extra = {name for i in inits for _, name, _ in _kw_calls(i, i.args.kwarg.arg if i.args.kwarg else None)}
        self.extra |= {k.arg for i in inits for n in ast.walk(i) if super_init(n) for k in n.keywords if k.arg}
        self.blocked = set()
        for c in classes:
            for st in c.body:
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.blocked.add(st.name)
                    continue
                self.blocked |= {n.value for n in ast.walk(st) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
                value = st.value if isinstance(st, (ast.Assign, ast.AnnAssign)) else None
                if not isinstance(value, ast.Constant):
                    self.blocked |= {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def defs(self, name: str) -> Optional[list]:
        """The functions named `name` of the first class of the chain that defines it; None when
        none does and a base not seen might."""
        for c in self.classes:
            found = [m for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == name]
            if found:
                return found
        return [] if self.complete else None

    def _table_keys(self, it) -> Optional[set]:
        """The names a `for` over `it` yields: `self.M()` (or `.items()`/`.keys()` of it) whose
        method returns one literal dict of constant keys."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "keys") \
                and not it.args:
            it = it.func.value
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and _is_self(it.func.value)):
            return None
        fns = self.defs(it.func.attr)
        if not fns or len(fns) != 1 or not fns[0].body or not isinstance(fns[0].body[-1], ast.Return):
            return None
        ret = [n for n in ast.walk(fns[0]) if isinstance(n, ast.Return)]
        d = fns[0].body[-1].value
        if len(ret) != 1 or not isinstance(d, ast.Dict) or not all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in d.keys):
            return None
        return {k.value for k in d.keys}

    def _loop_names(self, loop: ast.For, i: int, kw: Optional[str]) -> Optional[set]:
        it = loop.iter
        src = it.func.value if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) \
            and it.func.attr in ("items", "keys") and not it.args else it
        if kw and isinstance(src, ast.Name) and src.id == kw:
            # (the keywords that may reach it: builders.py refuses any the chain does not name; a
            # parameter of the class the build calls binds there, unless handed on by name: `extra`)
            return self.extra | {p for k, c in enumerate(self.classes) if k not in (0, i) and own_init(c) is not None
                                 for p in _params(own_init(c))}
        return self._table_keys(it)

    def writes(self, stmts: list, i: int, kw: Optional[str], seen: frozenset = frozenset(),
               owner: Optional[ast.FunctionDef] = None, selves: frozenset = _SELVES) -> Optional[set]:
        """The attributes of the instance (the names `selves`) that `stmts` (code of
        `self.classes[i]` or of a function it hands the instance to, in `owner`, its `**`
        parameter `kw`) may write; None when not known (the instance escapes: config_calls.py)."""
        out, looped, parents = set(), {}, {}
        nodes = [n for st in stmts for n in walk_noting_parents(st, parents)]
        if escapes(nodes, parents, selves):
            return None
        for n in nodes:
            if isinstance(n, ast.For):
                names = self._loop_names(n, i, kw) if selves is _SELVES else None
                for c in ast.walk(n):
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "setattr":
                        looped[id(c)] = names
        for n in nodes:
            if isinstance(n, ast.Attribute) and _is_self(n.value, selves):
                if n.attr == "__dict__":
                    return None
                if isinstance(n.ctx, (ast.Store, ast.Del)):
                    out.add(n.attr)
                    got = self._run(self.defs(n.attr), seen)  # (a property's setter)
                    if got is None:
                        return None
                    out |= got
            if not isinstance(n, ast.Call):
                continue
            if super_init(n) is not None:
                got = self.base_writes(i)
            elif isinstance(n.func, ast.Name) and n.func.id == "setattr" and n.args and _is_self(n.args[0], selves) \
                    and not passes(ast.Call(n.func, n.args[1:], n.keywords), selves):
                name = n.args[1] if len(n.args) > 1 else None
                got = {name.value} if isinstance(name, ast.Constant) and isinstance(name.value, str) \
                    else looped.get(id(n))
            elif passes(n, selves):
                got = set() if isinstance(n.func, ast.Name) and n.func.id in SAFE_CALLS \
                    else self._follow(n, i, owner, selves, seen)
            elif isinstance(n.func, ast.Attribute) and _is_self(n.func.value, selves):
                got = self._run(self.defs(n.func.attr), seen)
            else:
                got = set()
            if got is None:
                return None
            out |= got
        return out

    def _follow(self, call: ast.Call, i: int, owner, selves: frozenset, seen: frozenset) -> Optional[set]:
        """What a call of the analysed code's functions handing them the instance writes on it."""
        fns = callees(call, owner, self.resolve)
        if fns is None:
            return None
        out = set()
        for f in fns:
            params = bound_params(f, call, selves)
            if params is None:
                return None
            if not params or (id(f), params) in seen:
                continue
            got = self.writes(f.body, i, None, seen | {(id(f), params)}, f, params)
            if got is None:
                return None
            out |= got
        return out

    def _run(self, fns: Optional[list], seen: frozenset) -> Optional[set]:
        if fns is None:
            return None
        out = set()
        for f in fns:
            if id(f) in seen:
                continue
            if [getattr(d, "id", None) for d in f.decorator_list] in (["staticmethod"], ["classmethod"]):
                continue  # (no instance to write: the call passes none, `writes` checks)
            if not _plain(f):
                return None
            i = next((k for k, c in enumerate(self.classes) if f in c.body), 0)
            got = self.writes(f.body, i, f.args.kwarg.arg if f.args.kwarg else None, seen | {id(f)}, f)
            if got is None:
                return None
            out |= got
        return out

    def base_writes(self, i: int) -> Optional[set]:
        """What the `__init__` of `self.classes[i]`'s base writes (nothing: `object`'s)."""
        if i + 1 >= len(self.classes):
            return set() if self.complete else None
        init = own_init(self.classes[i + 1])
        if init is None:
            return self.base_writes(i + 1)
        if not _plain(init):
            return None
        return self.writes(init.body, i + 1, init.args.kwarg.arg if init.args.kwarg else None, owner=init)

    def decided(self, i: int = 0, bound: frozenset = frozenset()) -> dict:
        """attr -> default: what the `__init__` of `self.classes[i]` (its parameters `bound`
        passed by the caller) and the bases it calls leave at a default the context decides."""
        if i >= len(self.classes):
            return {}
        init = own_init(self.classes[i])
        if init is None:
            return self.decided(i + 1, bound)
        parents: dict = {}
        if not _plain(init) or escapes(list(walk_noting_parents(init, parents)), parents, _SELVES):
            return {}  # (an alias made before an assignment may write the attribute after it)
        kw = init.args.kwarg.arg if init.args.kwarg else None
        nones = none_params(init) if i == 0 else set()
        defaults = {k: v for k, v in param_defaults(init).items()
                    if k not in bound and (context_kind(v) or k in nones)}
        rebound = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        clean = _kwargs_clean(init)
        out: dict = {}
        for j, st in enumerate(init.body):
            found = self._assigned(st, defaults, rebound, kw if clean else None, bound) or derived(st, nones)
            sup = super_init(st.value) if isinstance(st, ast.Expr) else None
            if found is None and (sup is None or not clean):
                continue
            after = self.writes(init.body[j + 1:], i, kw, owner=init)
            if after is None:
                continue
            reads = found[1].reads if found is not None and isinstance(found[1], Derived) else frozenset()
            if found is not None and found[0] not in after and not reads & (after | self.blocked):
                out[found[0]] = found[1]
            base_bound = self._bound(sup, i, kw) if sup is not None else None
            if base_bound is not None:
                out.update({a: v for a, v in self.decided(i + 1, base_bound).items() if a not in after})
        return {a: v for a, v in out.items() if a not in self.blocked}

    @staticmethod
    def _assigned(st, defaults: dict, rebound: set, kw: Optional[str], bound: frozenset):
        """(attr, default) of `self.A = P` (P a parameter at a decided default) or
        `self.A = KW.pop("N", D)` / `.get` (D a decided default, N not passed by the caller)."""
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute)
                and _is_self(st.targets[0].value)):
            return None
        v, attr = st.value, st.targets[0].attr
        if isinstance(v, ast.Name) and v.id in defaults and v.id not in rebound:
            return attr, defaults[v.id]
        if kw and isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("pop", "get") \
                and isinstance(v.func.value, ast.Name) and v.func.value.id == kw and len(v.args) == 2 \
                and isinstance(v.args[0], ast.Constant) and v.args[0].value not in bound \
                and isinstance(v.args[1], ast.Constant) and context_kind(v.args[1].value):
            return attr, v.args[1].value
        return None

    def _bound(self, call: ast.Call, i: int, kw: Optional[str]) -> Optional[frozenset]:
        """The base's parameters `call` passes (its `**KW`: the caller's own keywords, which
        builders.py checks), or None when it spreads anything else."""
        if i + 1 >= len(self.classes) or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        if any(k.arg is None and not (isinstance(k.value, ast.Name) and k.value.id == kw) for k in call.keywords):
            return None
        base = next((own_init(c) for c in self.classes[i + 1:] if own_init(c) is not None), None)
        names = _params(base) if base is not None else []
        return frozenset(names[:len(call.args)]) | {k.arg for k in call.keywords if k.arg}


# (ids of a chain's class nodes, complete) -> (the nodes, what `decided` found, the lookups made:
# _remembered): the chains of a process's shared trees, each read once (every construction context
# of a file's models asks of its configuration's chain, its base's `__init__` walked again each
# time: 2 % of `check`'s CPU time)
_DECIDED: dict = {}
MAX_DECIDED = 512  # chains remembered at most (then forgotten all at once: the editor's edits make new trees)


def _remembered(key, classes: list, resolve: Optional[Resolve], compute):
    """`compute(recorded resolve)` for the chain `classes`, once per process while `resolve`
    answers the lookups it made alike (config_calls.Recorded)."""
    got = _DECIDED.get(key)
    if got is None or not got[2].holds_for(resolve):
        if len(_DECIDED) >= MAX_DECIDED:
            _DECIDED.clear()
        rec = Recorded(resolve)
        got = _DECIDED[key] = (tuple(classes), compute(rec), rec)
    return got[1]


def decided(classes: list, complete: bool = True, resolve: Optional[Resolve] = None) -> dict:
    """attr -> default the configuration built from `classes[0]` (its bases after it, in their
    resolution order; `complete`: no other) holds whatever keywords a build passes that
    builders.py accepts (`resolve`: the functions a name of the chain's code stands for,
    config_calls.py). Pure `ast`, so once per chain (the nodes are held with the answer:
    their ids stay theirs); a copy the caller may change."""
    if not classes or any(c.decorator_list or c.keywords for c in classes):
        return {}  # (a decorator or a metaclass may make its `__init__` another)
    key = (tuple(map(id, classes)), complete)
    return dict(_remembered(key, classes, resolve, lambda rec: _Chain(classes, complete, rec).decided()))


def present_names(classes: list, complete: bool = True, resolve: Optional[Resolve] = None) -> Optional[frozenset]:
    """Every attribute name an instance built by `classes[0]` (its bases after it) may hold
    after its construction, for a build builders.py accepts: what the `__init__`s may write
    (their `setattr` loops over the keywords the chain names included) and every name the classes
    define or mention at class level. Any other is absent (`getattr(config, "name", d)` is `d`).
    None when that is not known: a base not seen, a decorator or metaclass, a write not followed,
    a `__getattr__` (it may supply any name), or a `__getattribute__` that does more than rename
    its key through a class-level table (whose names are mentioned, so present)."""
    if not complete or not classes or any(c.decorator_list or c.keywords for c in classes):
        return None
    key = ("present", tuple(map(id, classes)))
    return _remembered(key, classes, resolve, lambda rec: _present(classes, rec))  # (once per chain)


def _present(classes: list, resolve: Optional[Resolve] = None) -> Optional[frozenset]:
    chain = _Chain(classes, True, resolve)
    if chain.defs("__getattr__") or not all(map(_renames, chain.defs("__getattribute__") or [])):
        return None
    init = own_init(classes[0])
    if init is None:
        written = chain.base_writes(0)
    else:
        written = chain.writes(init.body, 0, init.args.kwarg.arg if init.args.kwarg else None, owner=init) \
            if _plain(init) else None
    return None if written is None else frozenset(written | chain.blocked)


def _renames(fn: ast.FunctionDef) -> bool:
    """`def __getattribute__(self, key)` whose every `return` is `super().__getattribute__(key)`,
    `key` rebound only to an item of a table (`key = ...table[key]`)."""
    a = fn.args.args
    if len(a) != 2 or fn.args.vararg or fn.args.kwarg:
        return False
    key = a[1].arg
    stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == key and isinstance(n.ctx, ast.Store)]
    renamed = [t for n in ast.walk(fn) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Subscript)
               for t in n.targets if isinstance(t, ast.Name) and t.id == key]
    returns = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
    return len(stores) == len(renamed) and bool(returns) and all(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "__getattribute__"
        and isinstance(c.func.value, ast.Call) and isinstance(c.func.value.func, ast.Name)
        and c.func.value.func.id == "super" and len(c.args) == 1 and isinstance(c.args[0], ast.Name)
        and c.args[0].id == key for c in returns)


def forwards_keywords(classes: list) -> bool:
    """Whether `classes[0]`'s `__init__` hands its `**kwargs` to a base's."""
    init = own_init(classes[0]) if classes else None
    kw = init.args.kwarg.arg if init is not None and init.args.kwarg else None
    return kw is not None and any(super_init(n) is not None and any(
        k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw for k in n.keywords)
        for n in ast.walk(init))


def keyword_at_default(classes: list, name: str, value) -> bool:
    """Whether a keyword `name=value` the class's own `__init__` does not take may be passed to a
    configuration built from `classes` that forwards it to its bases (forwards_keywords) without
    changing what `decided` claims: a parameter of a base's `__init__`, or a name one of the
    chain pops, whose decided defaults it equals (a constant of the same type); any other name
    may reach a `setattr` loop, and is refused."""
    seen, defaults = False, []
    for k, c in enumerate(classes):
        init = own_init(c)
        if init is None:
            continue
        if k > 0 and name in _params(init):
            seen = True
            d = param_defaults(init)
            if name in d:
                defaults.append(d[name])
        for method, n, d in _kw_calls(init, init.args.kwarg.arg if init.args.kwarg else None):
            if n == name:
                seen = seen or method == "pop"
                defaults.append(d)
    if not seen:
        return False
    return all(isinstance(value, ast.Constant) and type(value.value) is type(d) and value.value == d
               for d in defaults if d is ... or context_kind(d))


def keyword_storing(classes: list, attr: str) -> list:
    """[(keyword, default)] of each store of `self.attr` in the chain's `__init__`s from a keyword
    they take: `self.attr = kwargs.pop("k", d)` or `self.attr = k` of a parameter `k` (default:
    the constant's value, `...` when not a constant or none)."""
    out = []
    for c in classes:
        init = own_init(c)
        if init is None:
            continue
        kw = init.args.kwarg.arg if init.args.kwarg else None
        defaults = param_defaults(init)
        for st in ast.walk(init):
            if not (isinstance(st, ast.Assign) and any(isinstance(t, ast.Attribute) and _is_self(t.value)
                                                       and t.attr == attr for t in st.targets)):
                continue
            v = st.value
            if isinstance(v, ast.Name) and v.id in _params(init):
                out.append((v.id, defaults.get(v.id, ...)))
            else:
                out.extend((n, d) for _m, n, d in _kw_calls(ast.Module(body=[ast.Expr(v)], type_ignores=[]), kw))
    return out
