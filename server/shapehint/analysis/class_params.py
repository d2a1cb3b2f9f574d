"""A parameter annotated with the classes it may be (`block: type[Union[BasicBlock, Bottleneck]]`,
`Type[Block]`): a CNN assembled from the block class it is given (torchvision's ResNet builds
its stages with `block(...)` and sizes its head with `512 * block.expansion`). Without a
constructing context such a parameter was an opaque value, so every stage it built was unknown.

In its own analysis the parameter is one of the annotated classes or of their subclasses that
the analysed code defines (`type[X]` admits subclasses): a ChoiceV (choices.py), so a call builds
each option and joins what they give, an attribute is what every option holds, and where the
options disagree (`expansion` 1 or 4) it is named as the code reads it: `block.expansion`, the
value of that name in every context that calls the analysed code, as a configuration's
attributes are named (defaults.py). Each option is taken under the condition that the names
hold its values (`block.expansion == 4` for Bottleneck), so what it builds from `block.expansion`
is its own size there. A member that is no class of the analysed code (another library's,
`nn.Module`) or too many options leave the parameter as it was: unknown, never a guess."""
from __future__ import annotations

import ast
import dataclasses
import weakref
from typing import Callable, Optional

from ..frontend.walk import walk
from ..shapes.expr import Expr
from ..shapes.shape import Shape, conj, eq
from ..shapes.values import IntV, TensorV, Value
from .annotations import union_members, unstring
from .arm_alignment import aligned_options
from .choices import choice_of
from .objects import ChoiceV, ClassObj, FuncObj, InstanceObj, OpaqueV

_TYPE_NAMES = {"type", "Type"}


def class_param(node: ast.AST, resolve: Callable[[ast.AST], Value], classes: list,
                name: Optional[str] = None) -> Optional[Value]:
    """The value of the parameter `name` annotated `node` when that is `type[...]` of classes the
    analysed code defines (`classes`: all it defines, for their subclasses); else None."""
    node = unstring(node)
    if not isinstance(node, ast.Subscript) or not _is_type(node.value, resolve):
        return None
    members = _classes(node.slice, resolve)
    return _choice(members, classes, name) if members is not None else None


def passed_as_classes(node: ast.AST, resolve: Callable[[ast.AST], Value], classes: list, fn: ast.FunctionDef,
                      name: str, module: dict) -> Optional[Value]:
    """`block: Union[A, B]` on a parameter of `fn` — instances, as written — that `fn` passes on,
    itself or a name computed from it (`fns = to_tuple(n)(block)`), to a function of its own
    module that annotates that parameter as classes of the same set (`fns: Tuple[Type[A] |
    Type[B], ...]`): the code's two hints disagree, and the one where the value is used says
    classes (a module instance called with a block's constructor arguments would raise), so it is
    read as `type[Union[A, B]]` (`class_param`). Only classes the analysed code defines count;
    anything else (no such call, another module's function, other classes) leaves it as it was."""
    if not isinstance(unstring(node), (ast.Subscript, ast.BinOp)):
        return None  # (no union spelled)
    names, calls = _passing_calls(fn, name)
    if not calls:
        return None  # (decided on the syntax: nothing evaluated, no step spent)
    members = _classes(node, resolve)
    if members is None or not all(c.is_module() for c in members):
        return None
    want = {id(c) for c in members}
    for call in calls:
        callee = resolve(call.func)
        if not isinstance(callee, FuncObj) or callee.node is fn or callee.globals is not module:
            continue  # (another module's annotation names its own globals)
        a = callee.node.args
        params = a.posonlyargs + a.args
        given = [(params[i] if i < len(params) else None, v) for i, v in enumerate(call.args)]
        given += [(next((q for q in params + a.kwonlyargs if q.arg == k.arg), None), k.value) for k in call.keywords]
        for param, v in given:
            if param is not None and param.annotation is not None and isinstance(v, ast.Name) and v.id in names \
                    and _type_members(param.annotation, resolve) == want:
                return _choice(members, classes, name)
    return None


def _passing_calls(fn: ast.FunctionDef, name: str) -> tuple:
    """(the names derived from `name`, the calls of a plain name `fn` passes one of them to), read
    once per tree: every generic analysis of a function with a union-hinted parameter asks."""
    per_fn = _PASSING.get(fn)
    if per_fn is None:
        per_fn = _PASSING[fn] = {}
    got = per_fn.get(name)
    if got is None:
        names = _derived_names(fn, name)
        calls = tuple(c for c in walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                      and any(isinstance(v, ast.Name) and v.id in names for v in c.args + [k.value for k in c.keywords]))
        got = per_fn[name] = (frozenset(names), calls)
    return got


_PASSING: "weakref.WeakKeyDictionary[ast.FunctionDef, dict]" = weakref.WeakKeyDictionary()


def _type_members(node: ast.AST, resolve) -> set:
    """The ids of the classes every `Type[...]` in `node` names (`Tuple[Type[A] | Type[B], ...]`:
    A's and B's); an empty set when one names no class."""
    out: set = set()
    for t in walk(unstring(node) or node):
        if isinstance(t, ast.Subscript) and _is_type(t.value, resolve):
            got = _classes(t.slice, resolve)
            if got is None:
                return set()
            out |= {id(c) for c in got}
    return out


def _derived_names(fn: ast.FunctionDef, name: str) -> set:
    """`name` and the local names assigned from an expression that reads one of them."""
    names, grew = {name}, True
    while grew:
        grew = False
        for st in walk(fn):
            if isinstance(st, ast.Assign) and any(isinstance(n, ast.Name) and n.id in names for n in walk(st.value)):
                for t in st.targets:
                    if isinstance(t, ast.Name) and t.id not in names:
                        names.add(t.id)
                        grew = True
    return names


def _classes(node: ast.AST, resolve) -> Optional[list]:
    """The classes a (union) annotation names, each resolved; None when one is no class."""
    members = union_members(node, resolve)
    members = members if members is not None else [unstring(node)]
    if not members or any(m is None for m in members):
        return None
    out = [resolve(m) for m in members]
    return out if all(isinstance(c, ClassObj) for c in out) else None  # (`None`, another library's class)


def _choice(members: list, classes: list, name: Optional[str]) -> Optional[Value]:
    options: list = []
    for cls in members:
        for c in [cls] + _subclasses(cls, classes):
            if not any(c is o for o in options):
                options.append(c)
    chosen = choice_of(options)
    if not isinstance(chosen, ChoiceV) or name is None:
        return chosen
    sizes = _disagreeing_sizes(chosen.options)
    conds = tuple(conj(*(eq(Expr.sym(f"{name}.{a}"), vals[i]) for a, vals in sizes.items())) if sizes else None
                  for i in range(len(chosen.options)))
    return ChoiceV(chosen.options, conds if sizes else None, name)


def named_attr(choice: ChoiceV, attr: str, vals: list) -> Optional[Value]:
    """`block.expansion` of a class parameter whose options hold different known ints there: that
    name (its options' conditions say which value each holds); None where they agree or one is
    not a known int (the join then says what is known)."""
    if choice.name is None or choice.conds is None or attr not in _disagreeing_sizes(choice.options):
        return None
    return OpaqueV(f"{choice.name}.{attr}", "int")


def _disagreeing_sizes(options: tuple) -> dict:
    """{attribute: each option's int} for the class attributes every option holds as a known int
    and not all alike."""
    out: dict = {}
    first = options[0]
    for attr in first.attrs if isinstance(first, ClassObj) else ():
        vals = [_const(o.lookup(attr)) if isinstance(o, ClassObj) else None for o in options]
        if None not in vals and len(set(vals)) > 1:
            out[attr] = vals
    return out


def _const(v) -> Optional[int]:
    return v.expr.value if isinstance(v, IntV) and v.expr.value is not None else None


def _is_type(node: ast.AST, resolve) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name not in _TYPE_NAMES:
        return False
    return not isinstance(resolve(node), ClassObj)  # (a class of the file's own named `Type` is not typing's)


def _subclasses(cls: ClassObj, classes: list) -> list:
    """The classes among `classes` that derive from `cls`, at any depth."""
    out: list = []

    def derives(c: ClassObj, seen: set) -> bool:
        for b in c.bases:
            if b is cls or isinstance(b, ClassObj) and id(b) not in seen and derives(b, seen | {id(b)}):
                return True
        return False

    for c in classes:
        if isinstance(c, ClassObj) and c is not cls and derives(c, set()):
            out.append(c)
    return out


def joined_calls(cx, fn: Value, outs: list, facts) -> Value:
    """The join of a choice's calls, [(an option's condition, its result)]: for a class parameter's
    choice, each size its options' results give as one multiple of `block.expansion` by its value
    there (`64` for BasicBlock's, `256` for Bottleneck's: `64*block.expansion`) written so, and the
    instances it builds kept as a choice of that name, so their calls are joined alike."""
    vals = aligned_options(outs, facts, cx.resolve)
    values = _option_values(fn, outs) if isinstance(fn, ChoiceV) and fn.name is not None else None
    if values:
        vals = _named_dims(vals, values, cx.resolve)
    out = cx.join_values(vals)
    if values and isinstance(out, ChoiceV) and len(out.options) == len(outs) and \
            all(isinstance(o, InstanceObj) and o is v for o, v in zip(out.options, vals)):
        return ChoiceV(out.options, tuple(c for c, _ in outs), fn.name)
    return out


def _option_values(fn: ChoiceV, outs: list) -> Optional[dict]:
    """{`block.expansion`: its value in each of `outs`}, matched by the condition each ran under
    (an option with none, on both arms of an `if`, matches no one class: nothing is named)."""
    if fn.conds is None or any(cond is None for cond, _ in outs):
        return None
    classes = [o if isinstance(o, ClassObj) else getattr(o, "cls", None) for o in fn.options]
    if not all(isinstance(c, ClassObj) for c in classes):
        return None
    idx = [next((i for i, c in enumerate(fn.conds) if c is cond), None) for cond, _ in outs]
    if None in idx:
        return None
    return {f"{fn.name}.{a}": [vals[i] for i in idx] for a, vals in _disagreeing_sizes(tuple(classes)).items()}


def _named_dims(vals: list, values: dict, resolve) -> list:
    if not all(isinstance(v, TensorV) for v in vals):
        return vals
    shapes = [resolve(v) for v in vals]
    if any(s.rank is None or s.star is not None or s.rank != shapes[0].rank for s in shapes):
        return vals
    dims = [list(s.dims) for s in shapes]
    for d in range(shapes[0].rank):
        got = [s.dims[d] for s in shapes]
        if any(g != got[0] for g in got):
            named = _as_multiple(got, values)
            if named is not None:
                for row in dims:
                    row[d] = named
    return [dataclasses.replace(v, shape=Shape(tuple(row))) if tuple(row) != s.dims else v
            for v, s, row in zip(vals, shapes, dims)]


def _as_multiple(got: list, values: dict) -> Optional[Expr]:
    """`c*name` that is each of `got` where `name` holds its value there (checked by substituting
    it: equal as written, no solver), or None."""
    for name, each in values.items():
        for g, e in zip(got, each):
            if e <= 0:
                continue
            c = g // e
            if c * e != g:
                continue
            named = c * Expr.sym(name)
            if all(named.subs({name: v}) == x for x, v in zip(got, each)):
                return named
    return None
