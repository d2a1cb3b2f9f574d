"""The construction with every flag and string at its default (docs/analysis.md, "A flag's default").

The class analysed on its own holds each bool constructor flag undecided (flags.py), so a flag
that decides a layout (`dynamic_img_size=False` choosing a patch embedding's output format through
the arguments it builds it with) joins both layouts on every line after it: the rank is lost; and
each string default decides nothing (values.DefaultStrV), so a stem a string picks
(`deep_stem = 'deep' in stem_type`) has channels of either arm, and an activation named by one
(`act_layer='gelu'`, looked up in a registry) is no layer at all. The construction that keeps every
flag and every string at its default is one construction context more (built.py): the class's
instance with those decided and everything else as the generic instance has it (int defaults as
symbols, `None` defaults open), whose `forward` and parts run and are listed as
`CLASS.__init__:LINE`. As a factory's context it is never the line's own shape: it claims shapes
only for instances built with the flags and strings at their defaults (devicerun/builders.py
matches it to a build only when the build passes none of them another value).

Its float defaults are their values there too (`patch_drop_rate=0.` leaves the patch dropout out,
whose dropped tokens made the sequence's length unknown in every line after it; builders.py
matches a build only when it passes none of them another value); a class with only float
defaults has no such context. So are its int defaults below 1 (`reg_tokens: int = 0`: the class on
its own holds a symbol that may be 0, so `... if reg_tokens else None` is undecided there); an int
from 1 up stays a symbol, as a build passes its own sizes, unless the constructor compares it
(`curr_stride >= output_stride`: deciding_ints.py). A string parameter the constructor compares
with a literal (`'deep' in stem_type`) gets the same construction once more per literal, that
parameter given it (param_literals.py); a sequence of sizes whose length it reads
(`enumerate(block_config)`), once more as a sequence of the default's length (param_lengths.py).

A class whose `__init__` takes only `*args, **kwargs` and hands them to its base's
(`super().__init__(*args, **kwargs)`, spread.py) has the base's flags and strings: its open
`**kwargs` holds each at its default there (still open for the rest), so the base's `__init__`
binds them as given; the build is then matched against the base's signature.
"""
from __future__ import annotations

import ast
from typing import Callable

from ..shapes.shape import FALSE, TRUE
from ..shapes.expr import Expr
from ..shapes.values import BoolV, DefaultStrV, DictV, FloatV, IntV, ListV, NoneV, StrV, TupleV, Value
from .config_bases import decided as config_decided
from .config_derived import Derived
from .config_defaults import PARAM, class_chain, config_at_defaults, config_class_of
from .deciding_ints import deciding_ints
from . import costs
from .built import MAX_CONTEXTS, _own_forward, run_in_context
from .defaults import open_default_nones
from .frames import BuiltContext, Frame, span_of
from .generic import construct, forget_state
from .literal_contexts import CONTEXT_STEPS, LITERAL_STEPS, builds_any, guarded_in, label as literal_label
from .param_lengths import both, label as length_label, param_lengths, required_length
from .param_literals import label as param_label, param_literals
from .properties import setter
from .objects import ClassObj, FuncObj, InstanceObj, OpaqueV
from .optional_parts import open_optional_parts
from ..frontend.params import defaulted


def _at_default(v: Value) -> Value:
    if isinstance(v, DefaultStrV):
        return StrV(v.value)  # (a plain string: its comparisons and lookups are decided)
    return BoolV(TRUE if v.at_default else FALSE)


def int_below_one(v) -> bool:
    """An int default below 1 (`reg_tokens: int = 0`): the class on its own holds it a symbol that
    may be that low (defaults.symbol_noting), so `... if reg_tokens else None` is undecided; the
    context fixes it (devicerun/builders.py reads the same test). Ints from 1 up stay symbols: a
    build passes its own sizes, and a context that fixed them would match none."""
    return type(v) is int and v < 1


def _flag_defaults(init: ast.FunctionDef, kinds=(bool, str), low_ints: bool = False) -> dict:
    """`init`'s parameters whose default is `True`, `False` or a string (or of `kinds`, or with
    `low_ints` an int below 1): name -> the default."""
    pairs = defaulted(init)
    return {p.arg: d.value for p, d in pairs if isinstance(d, ast.Constant)
            and (isinstance(d.value, kinds) or low_ints and int_below_one(d.value))}


def context_defaults(init: ast.FunctionDef) -> dict:
    """Every default of `init` the context decides: bools, strings, floats, ints below 1 and the
    ints it compares (what a build must leave at its default to be in it, devicerun/builders.py)."""
    return {**_flag_defaults(init, (bool, str, float), True), **deciding_ints(init)}


def forwarded_flags(cls: ClassObj, init: ast.FunctionDef) -> dict:
    """The flags and strings of the base's `__init__` that `init`, taking only `self, *args,
    **kwargs`, forwards to (its first base's own, as devicerun/builders.py reads the signature)."""
    a = init.args
    if a.vararg is None or a.kwarg is None or a.posonlyargs or len(a.args) != 1 or a.kwonlyargs \
            or not cls.bases or not isinstance(cls.bases[0], ClassObj):
        return {}
    base = cls.bases[0].attrs.get("__init__")
    return context_defaults(base.node) if isinstance(base, FuncObj) and base.node is not None else {}


def _constant(v) -> Value:
    if v is None:
        return NoneV()  # (a configuration's own `None` default: config_bases.none_params)
    if isinstance(v, bool):
        return BoolV(TRUE if v else FALSE)
    return StrV(v) if isinstance(v, str) else IntV(Expr.const(v)) if isinstance(v, int) else FloatV(v)


def _config(it, init: FuncObj, always: bool = False):
    """The configuration `init` takes, at its class's decided defaults (config_defaults.py), or None
    (where none is decided, unless `always`)."""
    cfg = config_class_of(init)
    decided = config_decided(*class_chain(it, cfg)) if cfg is not None else {}
    return config_at_defaults(it, cfg, {k: v if isinstance(v, Derived) else _constant(v) for k, v in decided.items()}) \
        if decided or always and cfg is not None else None


def has_flags(init: ast.FunctionDef) -> bool:
    """Whether `init` has a parameter whose default is `True`, `False` or a string."""
    return bool(_flag_defaults(init))


def _runs_own_code(it, cls: ClassObj) -> bool:
    """Whether `cls`'s `forward` is this file's, or another module's (a base's) that may call the
    methods `cls` defines here (own_methods.py runs them again in the context)."""
    fwd = cls.lookup("forward")
    return _own_forward(it, cls) or isinstance(fwd, FuncObj) and fwd.node is not None and any(
        isinstance(n, ast.FunctionDef) and n.name != "__init__" for n in cls.node.body)


def run_at_flag_defaults(it, init: FuncObj, param_value: Callable) -> None:
    """After `init`'s generic analysis: the construction context of its class (a module-level
    module with a `forward` in this file) built with every flag, string and float of `init` (or of
    the base it forwards `*args, **kwargs` to) at its default; then the same construction once per
    configuration literal assumed after it (literal_contexts.py)."""
    cls = init.cls
    if it.as_built or cls is None or cls.node is None or "." in cls.qualname or not cls.is_module() \
            or not _runs_own_code(it, cls):
        return
    forwarded = forwarded_flags(cls, init.node)
    if has_flags(init.node) or any(isinstance(v, (bool, str)) for v in forwarded.values()):
        _run_at_defaults(it, init, forwarded, param_value, None)
    required = required_length(init.node)
    for given in param_literals(init.node):  # (a string parameter given a literal it is compared with)
        _within_literal_share(it, init, given, lambda g=given: _run_at_defaults(
            it, init, forwarded, param_value, None, g), param_label)
        if required is not None:  # (and the sequence a build must pass, of the length assumed)
            _within_literal_share(it, init, given, lambda g=given: _run_at_defaults(
                it, init, forwarded, param_value, None, g, required),
                lambda text, p, lit: both(param_label(text, p, lit), *required))
    for given in param_lengths(init.node):  # (a sequence of sizes as long as its default)
        _within_literal_share(it, init, given, lambda g=given: _run_at_defaults(
            it, init, forwarded, param_value, None, g), length_label)
    if config_class_of(init) is not None:
        for assumed in guarded_in(_module_nodes(it, init)):
            _within_literal_share(it, init, assumed, lambda a=assumed: _run_at_defaults(
                it, init, forwarded, param_value, a))


def _module_nodes(it, init: FuncObj) -> list:
    """The class nodes of `init`'s module (where a literal guards a lookup) and its module-level
    assignments (the tables they read: literal_contexts.py)."""
    tree = next((t for g, t, _ in getattr(it.imports, "scanned", ()) if g is init.globals), None)
    return [v.node for v in init.globals.values() if isinstance(v, ClassObj) and v.node is not None
            and v.module_path == init.cls.module_path] \
        + [st for st in (tree.body if tree is not None else ()) if isinstance(st, ast.Assign)]


def _within_literal_share(it, init: FuncObj, assumed: tuple, run: Callable, name=literal_label) -> None:
    """`run()`, the context assuming `assumed`, within what the analysis's literal contexts have
    left of LITERAL_STEPS (none once they are spent), and within CONTEXT_STEPS; one cut off there
    is no claim: its records and the diagnostics made while it ran go (as a failed context's,
    failed_contexts.py), and no class naming its class runs one (it would be cut off too)."""
    account = costs.account(it)
    if account is None:
        return run()
    left = min(LITERAL_STEPS - account.literal, CONTEXT_STEPS)
    if left <= 0 or builds_any(init.cls.node, account.literal_cut):
        return None
    start, diagnostics = it.steps, it.sink.diagnostic_keys()

    def cut():
        account.literal_cut.add(init.cls.name)
        it.sink.forget_built(_label_text(init, assumed, name), diagnostics)
    try:
        costs.within_steps(it, left, run, cut)
    finally:
        account.literal += it.steps - start


def _label_text(init: FuncObj, assumed, name=literal_label) -> str:
    """`CLASS.__init__:LINE`, with the literal assumed (`assumed`: (attr, literal), or None; `name`
    writes it: a configuration's attribute, or a parameter, param_literals.label)."""
    text = f"{init.qualname}:{init.node.lineno}"
    return text if assumed is None else name(text, *assumed)


def _run_at_defaults(it, init: FuncObj, forwarded: dict, param_value: Callable, assumed, given=None,
                     length=None) -> None:
    """One construction context of `init`'s class at its defaults; `assumed`: (attr, literal) its
    configuration holds after the construction (literal_contexts.assume), or None; `given`:
    (param, literal) a string parameter takes instead of its default (param_literals.py), or
    (param, length) a sequence of sizes of its default's length takes (param_lengths.py), or None;
    `length`: (param, length) the required sequence takes besides a string's literal (`both`)."""
    cls = init.cls
    cfg = _config(it, init, always=assumed is not None)  # (no context of its own: each would run the whole model again)
    runs = it.built_runs.get(cls, 0)
    if runs >= MAX_CONTEXTS:
        return
    it.built_runs[cls] = runs + 1
    inst = InstanceObj(cls, {}, span_of(init.node))

    def kwargs():  # (a fresh one for each construction: `kwargs.pop(...)` changes it)
        return DictV({k: _constant(v) for k, v in forwarded.items()}, open=True) if forwarded else None
    fixed = {k: _constant(v) for k, v in {**_flag_defaults(init.node, float, True), **deciding_ints(init.node)}.items()}
    if cfg is not None:
        fixed[PARAM] = cfg
    counted = []
    for g in (given, length):
        if g is not None:
            fixed[g[0]] = _given_value(init.node, *g)
            counted += [item.path for item in _items(fixed[g[0]])] if isinstance(g[1], int) else []
    it.counted.update(counted)  # (the builds it claims for pass ints from 1 up: param_lengths.py)
    try:
        _construct_and_run(it, init, inst, cls, kwargs, fixed, cfg, assumed, given, length, param_value)
    finally:
        for name in counted:
            it.counted.discard(name)


def _items(v: Value) -> list:
    return list(v.items) if isinstance(v, (ListV, TupleV)) and v.items is not None else []


def _construct_and_run(it, init: FuncObj, inst: InstanceObj, cls, kwargs, fixed: dict, cfg, assumed, given,
                       length, param_value: Callable) -> None:
    if construct(it, init, inst, open_nones=False, flag=_at_default, kwargs=kwargs(), fixed=fixed) == "raise":
        return
    # (the same construction, its `None` defaults given: a part only a float's other value builds is none)
    open_optional_parts(inst, init, lambda i, o, make: construct(it, i, o, False, given=make, flag=_at_default,
                                                                 kwargs=kwargs(), fixed=fixed))
    open_default_nones(init, inst)
    forget_state(cls, inst)
    fr = Frame({}, init.qualname, it.new_store(), init.globals, cls=cls, root=init.qualname)
    if assumed is not None and not _assume(it, cfg, *assumed, fr):
        return
    text = _label_text(init, given, _given_label(given)) if given is not None else _label_text(init, assumed)
    label = BuiltContext(both(text, *length) if length is not None else text)
    label.deep = assumed is not None
    run_in_context(it, inst, fr, label, span_of(init.node), param_value)


def _given_value(init: ast.FunctionDef, param: str, given) -> Value:
    """A string parameter's literal, or a sequence of `given` sizes named `param[i]` (as a
    fixed-length tuple's are, generic.container_param), a list where the default is one."""
    if isinstance(given, str):
        return StrV(given)
    items = [OpaqueV(f"{param}[{i}]", "int") for i in range(given)]
    return ListV(items) if _default_is_list(init, param) else TupleV(tuple(items))


def _default_is_list(init: ast.FunctionDef, param: str) -> bool:
    """Whether `param`'s default is a list, or (without one) its hint names a list."""
    pairs = defaulted(init)
    if any(p.arg == param for p, _ in pairs):
        return any(p.arg == param and isinstance(d, ast.List) for p, d in pairs)
    a = init.args
    ann = next((p.annotation for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg == param), None)
    base = ann.value if isinstance(ann, ast.Subscript) else None
    return (base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)) in ("List", "list")


def _given_label(given) -> Callable:
    return param_label if isinstance(given[1], str) else length_label


def _assume(it, cfg: InstanceObj, attr: str, lit: str, fr: Frame) -> bool:
    """Store `lit` in `cfg.attr` as the code would (a property's setter where it has one), and
    whether reading it back gives that literal (else the assumption cannot be stated)."""
    put = setter(cfg.cls, attr)
    if put is False:
        return False
    it.mutated(cfg)
    if put is None:
        cfg.attrs[attr] = StrV(lit)
    else:
        it.call_function(put, [cfg, StrV(lit)], {}, fr, None)
    got = it.attribute(cfg, attr, None, fr)
    return isinstance(got, StrV) and got.value == lit
