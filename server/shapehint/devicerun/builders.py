"""Which of the file's factories built the run's model: the module-level functions its build
expression (`--build mobilenet_v3_small(num_classes=10)`, a `# entry:` comment's call) runs,
transitively. Their construction contexts (`FACTORY:LINE` in `infer` JSON) are the inference
for the model as built (compare.py), as they are for a user who reads hover after building it
that way (the referee's bench/realmodels/score.py judges the same contexts). A class the build
calls with every bool flag, string, float, int below 1 and int it compares (`output_stride`) of its
`__init__` at the default (none passed, or passed as
that constant; no `*args`/`**kwargs` that could pass one) built its model in the context of those
defaults (`CLASS.__init__:LINE`, analysis/flag_defaults.py). A class whose `__init__` takes only
`*args, **kwargs` for its base's is matched against the base's `__init__` (in the file, or in the
module it is imported from, found beside `path`'s package); one not found matches no build. A
class whose context holds its configuration at its class's defaults (analysis/config_defaults.py)
is matched only when the build passes one built so (`_config_at_defaults`): where that
configuration hands its `**kwargs` to its bases, each keyword it does not take itself must be one
a base's `__init__` takes or pops, at the default the context holds (analysis/config_bases.py).
The context assuming a sequence's length (analysis/param_lengths.py) is matched when the defaults
context is and the build passes a literal of that many ints from 1 up, or none (`_argument`); a
string literal's context that assumes the required sequence's length too (`both`), when the
literal's is and the build passes such a literal for that sequence."""
from __future__ import annotations

import ast
import os

try:
    from ..analysis.config_bases import forwards_keywords, keyword_at_default, keyword_storing, none_params
    from ..analysis.deciding_ints import deciding_ints, handed_on, import_target
    from ..analysis.literal_contexts import guarded_literals, label as literal_label
    from ..analysis.param_lengths import both, label as length_label, param_lengths, passes_length, required_length
    from ..analysis.param_literals import label as param_label, param_literals
    from ..frontend.params import defaulted
    from ..frontend.pyast import parse as parse_ast
except ImportError:  # loaded by path (bench/realmodels/score.py): this tree's files, as a package of
    # their own so that their relative imports resolve within the same tree
    import hashlib
    import importlib
    import sys
    import types

    _ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _TREE = "_shapehint_tree_" + hashlib.sha1(_ROOT.encode()).hexdigest()[:12]
    if _TREE not in sys.modules:
        _package = types.ModuleType(_TREE)
        _package.__path__ = [_ROOT]
        sys.modules[_TREE] = _package

    def _sibling(name: str, package: str = "analysis"):
        return importlib.import_module(f"{_TREE}.{package}.{name}")
    _bases = _sibling("config_bases")
    forwards_keywords, keyword_at_default = _bases.forwards_keywords, _bases.keyword_at_default
    keyword_storing, none_params = _bases.keyword_storing, _bases.none_params
    _deciding = _sibling("deciding_ints")
    deciding_ints, handed_on, import_target = _deciding.deciding_ints, _deciding.handed_on, _deciding.import_target
    _literals = _sibling("literal_contexts")
    guarded_literals, literal_label = _literals.guarded_literals, _literals.label
    _params = _sibling("param_literals")
    param_label, param_literals = _params.label, _params.param_literals
    _lengths = _sibling("param_lengths")
    length_label, param_lengths, passes_length = _lengths.label, _lengths.param_lengths, _lengths.passes_length
    both, required_length = _lengths.both, _lengths.required_length
    parse_ast = _sibling("pyast", "frontend").parse  # (its lock is the process's, however loaded)
    defaulted = _sibling("params", "frontend").defaulted


def built_by(exprs: list, text: str, path: str = "") -> frozenset:
    try:
        tree = parse_ast(text)
        calls = [parse_ast(e, mode="eval") for e in exprs]
    except (SyntaxError, ValueError):
        return frozenset()
    funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    flags, sizes = _keyword_kinds(tree, path)

    def called(node, kwarg) -> set:
        return {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                and c.func.id in funcs and _passes_sizes(c, funcs[c.func.id], kwarg, sizes - flags)}
    found, todo = set(), set().union(*[called(c, None) for c in calls]) if calls else set()
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo |= called(funcs[name], funcs[name].args.kwarg.arg if funcs[name].args.kwarg else None)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    inits = {k: _signature(n, tree, path) for k, n in classes.items()}
    inits = {k: v for k, v in inits.items() if v is not None}
    literals = guarded_literals(ast.Module(body=list(classes.values()) + [s for s in tree.body if isinstance(s, ast.Assign)],
                                           type_ignores=[]))
    for c in ast.walk(ast.Module(body=[ast.Expr(e.body) for e in calls] + [funcs[n] for n in found], type_ignores=[])):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in inits \
                and _flags_at_defaults(c, inits[c.func.id]):
            given = _config_at_defaults(c, inits[c.func.id], classes[c.func.id], classes, tree, path)
            if given:
                found.add(f"{c.func.id}.__init__")
            if isinstance(given, tuple):  # (the contexts that assume a literal: the build passes it)
                found |= {literal_label(f"{c.func.id}.__init__", a, lit) for a, lit in literals
                          if _passes_literal(*given, a, lit)}
            if given and inits[c.func.id] is _own_init(classes[c.func.id]):
                found |= {length_label(f"{c.func.id}.__init__", p, n) for p, n in param_lengths(inits[c.func.id])
                          if passes_length(_argument(c, inits[c.func.id], p), n)}
        elif isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in inits \
                and inits[c.func.id] is _own_init(classes[c.func.id]):
            lit = _one_literal(c, inits[c.func.id])
            if lit is not None and _config_at_defaults(c, inits[c.func.id], classes[c.func.id], classes, tree, path):
                found.add(param_label(f"{c.func.id}.__init__", *lit))
                req = required_length(inits[c.func.id])
                if req is not None and passes_length(_argument(c, inits[c.func.id], req[0]), req[1]):
                    found.add(both(param_label(f"{c.func.id}.__init__", *lit), *req))
    return frozenset(found)


def _argument(call: ast.Call, init: ast.FunctionDef, param: str):
    """What `call` passes `init`'s `param` (by position or keyword), else its default (the
    caller of `_flags_at_defaults`, which refuses `*args` and `**kwargs`, is the only caller)."""
    a = init.args
    pos = a.posonlyargs + a.args
    for p, v in zip(pos[1:], call.args):
        if p.arg == param:
            return v
    got = next((k.value for k in call.keywords if k.arg == param), None)
    if got is not None:
        return got
    pairs = defaulted(init)
    return next((d for p, d in pairs if p.arg == param), None)


def _one_literal(call: ast.Call, init: ast.FunctionDef):
    """(param, literal) when `call` leaves every flag of `init` at its default but one string
    parameter, given as a literal `init` compares it with (analysis/param_literals.py: the context
    built with that literal), else None."""
    a = init.args
    params = (a.posonlyargs + a.args)[1:]
    if any(isinstance(v, ast.Starred) for v in call.args) or any(k.arg is None for k in call.keywords) \
            or len(call.args) > len(params):
        return None
    flags = _flag_params(init)
    flags.update(deciding_ints(init))
    given = [(p.arg, v) for p, v in zip(params, call.args)] + [(k.arg, k.value) for k in call.keywords]
    other = [(n, v) for n, v in given if n in flags and not (
        isinstance(v, ast.Constant) and type(v.value) is type(flags[n]) and v.value == flags[n])]
    if len(other) != 1 or not isinstance(other[0][1], ast.Constant):
        return None
    found = (other[0][0], other[0][1].value)
    return found if found in param_literals(init) else None


def _passes_literal(arg: ast.Call, chain: list, attr: str, lit: str) -> bool:
    """Whether the configuration built by `arg` (of the classes `chain`) is given `lit` for `attr`
    (analysis/literal_contexts.py): the keyword the chain stores in `attr` passed as that string,
    or left at a default equal to it; every such keyword so, and at least one."""
    stored = keyword_storing(chain, attr)
    given = {k.arg: k.value for k in arg.keywords}
    return bool(stored) and all(
        isinstance(given.get(k), ast.Constant) and given[k].value == lit if k in given else d == lit
        for k, d in stored)


def _flag_params(func: ast.FunctionDef) -> dict:
    """`func`'s parameters whose default is a bool, a string, a float or an int below 1 (the
    defaults a construction context decides, analysis/flag_defaults.py and sized_kwargs.py):
    name -> the default."""
    pairs = defaulted(func)
    return {p.arg: d.value for p, d in pairs if isinstance(d, ast.Constant) and (
        isinstance(d.value, (bool, str, float)) or type(d.value) is int and d.value < 1)}


def _keyword_kinds(tree: ast.Module, path: str = "") -> tuple:
    """(the names of the file's flags: parameters with a flag's default or an int default its
    function compares or hands to a class that compares it (deciding_ints.py, which a sized
    context holds at its default too; the class in the file or imported beside `path`), the
    keys its code reads of a dict by `pop`/`get`/`setdefault`, and its dataclasses' fields, which
    `replace(cfg, **kwargs)` holds at `cfg`'s values; the names of its size parameters: an int
    default from 1 up, or none)."""
    flags, sizes = set(), set()
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    found: dict = {}

    def resolve(name):
        if name not in found:  # (each read and parsed once per file)
            found[name] = classes[name] if name in classes else _imported_class(tree, name, path)
        return found[name]
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            flags |= set(_flag_params(n)) | set(deciding_ints(n)) | set(handed_on(n, resolve))
            a = n.args
            pos = a.posonlyargs + a.args
            defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults) + list(a.kw_defaults)
            sizes |= {p.arg for p, d in zip(pos + a.kwonlyargs, defaults) if d is None or isinstance(
                d, ast.Constant) and type(d.value) is int and d.value >= 1}
        elif isinstance(n, ast.ClassDef) and any("dataclass" in ast.dump(d) for d in n.decorator_list):
            flags |= {st.target.id for st in n.body if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)}
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("pop", "get", "setdefault") \
                and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
            flags.add(n.args[0].value)
    return flags, sizes


def _passes_sizes(call: ast.Call, func: ast.FunctionDef, kwarg, sizes: set) -> bool:
    """Whether `call` of a factory that takes `**kwargs` is one its construction context holds
    (analysis/sized_kwargs.py: that `**kwargs` holds sizes only, every flag at its default):
    each flag of the factory at its default, and into its `**kwargs` only int constants from 1
    up under the names of the file's size parameters that are no flag (`sizes`), or the calling
    factory's own `**kwargs` (`kwarg`, itself so). A factory without `**kwargs`, or a private
    one (no sized context of its own: sized_kwargs.run_models), counts for any call of it."""
    if func.args.kwarg is None or func.name.startswith("_"):
        return True
    a = func.args
    params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    own = _flag_params(func)
    if any(isinstance(v, ast.Starred) for v in call.args) or len(call.args) > len(a.posonlyargs + a.args):
        return False
    given = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords]
    for name, v in given:
        if name is None:
            if not (isinstance(v, ast.Name) and v.id == kwarg):
                return False
        elif name in own:
            if not (isinstance(v, ast.Constant) and type(v.value) is type(own[name]) and v.value == own[name]):
                return False
        elif name not in params and not (isinstance(v, ast.Constant) and type(v.value) is int and v.value >= 1
                                         and name in sizes):
            return False
    return True


def _flags_at_defaults(call: ast.Call, init: ast.FunctionDef) -> bool:
    """Whether `call` leaves every parameter of `init` whose default is a bool, a string, a
    float, an int below 1 or an int `init` compares (deciding_ints.py) at its default (the
    construction context decides them, analysis/flag_defaults.py)."""
    a = init.args
    params = (a.posonlyargs + a.args)[1:]
    flags = _flag_params(init)  # (flag_defaults.context_defaults' choice: this module runs standalone)
    flags.update(deciding_ints(init))
    if any(isinstance(v, ast.Starred) for v in call.args) or any(k.arg is None for k in call.keywords):
        return False
    given = [(p.arg, v) for p, v in zip(params, call.args)] + [(k.arg, k.value) for k in call.keywords]
    return len(call.args) <= len(params) and all(
        isinstance(v, ast.Constant) and type(v.value) is type(flags[n]) and v.value == flags[n]
        for n, v in given if n in flags)


def _config_at_defaults(call: ast.Call, init: ast.FunctionDef, cls: ast.ClassDef, classes: dict,
                        tree: ast.Module, path: str) -> bool:
    """Whether `call` passes the configuration the context holds at its class's defaults
    (analysis/config_defaults.py): when `init` takes `config` and the class or a base of this file
    names its configuration class (`config: C`, `config_class = C`), the argument must be a call
    of `C` that leaves each of its bool, string, float and int-below-1 defaults as it is. True
    when `init` takes none; where it takes one so passed, (that call, the classes of `C`'s chain)."""
    a = init.args
    names = [p.arg for p in (a.posonlyargs + a.args)[1:]]
    name = _config_name(cls, classes)
    if "config" not in names or name is None:
        return True
    found = (classes[name], tree, path) if name in classes else _imported(tree, name, path)
    cfg = found[0] if found is not None else None
    cfg_init = _own_init(cfg) if cfg is not None else None
    if cfg_init is None:
        return False
    i = names.index("config")
    arg = call.args[i] if i < len(call.args) else next((k.value for k in call.keywords if k.arg == "config"), None)
    if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == name
            and _flags_at_defaults(arg, cfg_init) and _nones_at_default(arg, cfg_init)):
        return False
    # (the keywords it hands its bases: at the defaults the context holds, config_bases.py)
    chain = _class_chain(cfg, {n.name: n for n in found[1].body if isinstance(n, ast.ClassDef)}, *found[1:])
    own = {p.arg for p in cfg_init.args.posonlyargs + cfg_init.args.args + cfg_init.args.kwonlyargs}
    ok = not forwards_keywords(chain) or all(keyword_at_default(chain, k.arg, k.value)
                                             for k in arg.keywords if k.arg not in own)
    return (arg, chain) if ok else False


def _nones_at_default(call: ast.Call, init: ast.FunctionDef) -> bool:
    """Whether `call` leaves each `None` the context holds of the configuration it builds
    (config_bases.none_params) as it is: not passed, or passed `None`."""
    nones = none_params(init)
    params = [p.arg for p in (init.args.posonlyargs + init.args.args)[1:]]
    given = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords]
    return all(isinstance(v, ast.Constant) and v.value is None for n, v in given if n in nones)


def _class_chain(cls: ast.ClassDef, classes: dict, tree: ast.Module, path: str) -> list:
    """`cls` and the bases found of it and of them (in the file, or in the module `from M import
    Base` names), each once: the classes whose `__init__`s may take a keyword it forwards."""
    out, todo = [], [(cls, classes, tree, path)]
    while todo and len(out) < 32:
        c, classes, tree, path = todo.pop(0)
        if any(c is o for o in out):
            continue
        out.append(c)
        for b in c.bases:
            found = ((classes[b.id], tree, path) if b.id in classes else _imported(tree, b.id, path)) \
                if isinstance(b, ast.Name) else None
            if found is not None:
                todo.append((found[0], {n.name: n for n in found[1].body if isinstance(n, ast.ClassDef)}, *found[1:]))
    return out


def _config_name(cls: ast.ClassDef, classes: dict):
    """The configuration class's name `cls` or a base of this file declares (first found, breadth-first)."""
    todo, seen = [cls], set()
    while todo:
        c = todo.pop(0)
        if c is None or c.name in seen:
            continue
        seen.add(c.name)
        for st in c.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == "config" \
                    and st.value is None and isinstance(st.annotation, ast.Name):
                return st.annotation.id
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                    and st.targets[0].id == "config_class" and isinstance(st.value, ast.Name):
                return st.value.id
        todo.extend(classes.get(b.id) for b in c.bases if isinstance(b, ast.Name))
    return None


def _own_init(cls: ast.ClassDef):
    return next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)


def _forwards(init: ast.FunctionDef) -> bool:
    a = init.args
    return a.vararg is not None and a.kwarg is not None and not a.posonlyargs and len(a.args) == 1 \
        and not a.kwonlyargs


def _signature(cls: ast.ClassDef, tree: ast.Module, path: str):
    """The `__init__` whose parameters a build of `cls` binds: its own, or its first base's when
    it only forwards `*args, **kwargs` (as analysis/flag_defaults.forwarded_flags reads it)."""
    init = _own_init(cls)
    if init is None or not _forwards(init) or not cls.bases or not isinstance(cls.bases[0], ast.Name):
        return init
    name = cls.bases[0].id
    local = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    base = local if local is not None else _imported_class(tree, name, path)
    base_init = _own_init(base) if base is not None else None
    return base_init if base_init is not None and not _forwards(base_init) else None


def _imported_class(tree: ast.Module, name: str, path: str):
    """The class `name` that `from M import name` brings in, read from M's file."""
    found = _imported(tree, name, path)
    return found[0] if found is not None else None


def _imported(tree: ast.Module, name: str, path: str):
    """(class node, its module's tree, its file) of the class `name` that `from M import name`
    brings in, or None."""
    target = import_target(tree, name, path)
    if target is None:
        return None
    try:
        with open(target, encoding="utf-8") as f:
            other = parse_ast(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    node = next((n for n in other.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    return (node, other, target) if node is not None else None
