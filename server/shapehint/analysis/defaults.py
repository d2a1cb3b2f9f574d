"""Defaults are not facts (docs/ARCHITECTURE.md, "Defaults are not facts").

A constructor parameter's default is one possible value: the model that builds the layer may pass
another (`BasicBlock(64, 128, stride=2)`, `GroupNorm(groups=8)`). A class analysed on its own
(its generic instance, `generic.generic_instance`) therefore takes an int default as a symbol named
after the parameter (`stride`), and a configuration object's int attributes as symbols named after
the configuration (`config.hidden_size`), never the configuration class's defaults. The default
stays visible as a note on the symbol (hover: "default 1"). A call or construction in view binds
the values it passes (`calls.py`); one that omits the argument really uses the default.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import BoolV, DefaultNoneV, DefaultStrV, FloatV, IntV, ListV, NoneV, StrV, UnknownV, Value
from .flags import undecided_flag
from .objects import OpaqueV
from .result import DimInfo


def default_symbol(it, owner: str, name: str, v: Value, prefix: str = "") -> Value:
    """`v`, the default of constructor parameter (or dataclass field) `name` of class `owner`, as
    the class analysed on its own sees it: an int is a symbol of the parameter's name, or of the
    configuration's attribute (`prefix.name`) when it builds the configuration object `prefix`;
    a flag or a string is a value that decides nothing (flags.py, values.DefaultStrV); anything
    else is `v` itself (see `open_default_nones` for the `None`s kept in the instance)."""
    if isinstance(v, IntV) and v.expr.is_const:
        what = f"`{prefix}.{name}` of a `{owner}`" if prefix else f"constructor parameter `{name}` of `{owner}`"
        return symbol_noting(it, f"{prefix}.{name}" if prefix else name, what, v.expr.value)
    if isinstance(v, StrV) and v.value is not None:
        # a string that picks the architecture (`stem_type=''`, `version="1_0"`, a configuration's
        # `hidden_act="gelu"`): the class is built by callers with others, so no arm it chooses is
        # taken for a fact (the defaults context decides it: flag_defaults, config_defaults)
        return DefaultStrV(v.value)
    if isinstance(v, FloatV) and v.value is not None:
        # a multiplier or a rate (`width=1.0`): callers build the class with others, so no size
        # computed from it (`make_divisible(16 * width, 4)`) is taken for a fact
        return FloatV()
    if prefix and isinstance(v, BoolV):
        # a configuration's flag (`use_prompt=False`) is whatever the configuration says: a path
        # it chooses is undecided, and `assert config.flag` is no error for every configuration
        return BoolV()
    if isinstance(v, BoolV) and v.pred is not None and (v.pred.is_true or v.pred.is_false):
        # a flag (`downsample=True`) is whatever the caller says (stages built in a loop with
        # `downsample=i > 0` take both arms): undecided, remembering its default (flags.py)
        return undecided_flag(v)
    if not prefix and isinstance(v, NoneV):
        return DefaultNoneV()  # (one object per instance: its identity is not the shared default's)
    if _list_of_ints(v):
        return list_symbol(it, f"{prefix}.{name}" if prefix else name, [i.expr.value for i in v.items])
    return v


def chosen_default(it, name: str, v: Value, fr, held: Optional[Value] = None) -> Value:
    """`v`, chosen in `__init__` of a class analysed on its own by its parameter `name`'s `None`
    default (`channels = [768, 384, 192, 96] if channels is None else channels`, as configuration
    classes write their list defaults; `held`: what `name` held when the choice was made): a default spelled in the body is one value as much as one
    in the signature, so it is what `default_symbol` makes of it (`config.channels`, a list of
    unknown length), never the sizes of one model. A construction in view passes its values."""
    init = fr.cls.lookup("__init__") if fr.cls is not None and not fr.context else None
    held = fr.env.get(name) if held is None else held
    if init is None or getattr(init, "qualname", None) != fr.qualname or not isinstance(held, NoneV) or \
            not (isinstance(held, DefaultNoneV) or held is getattr(init, "defaults", {}).get(name)):
        return v
    key = next((k for k, inst in it.generic_instances.items() if inst is fr.self_obj), None)
    prefix = key[1] if isinstance(key, tuple) else ""
    if prefix and isinstance(v, IntV) and not v.expr.is_const:
        # a configuration's size derived from others when not given (`head_dim if head_dim is not
        # None else hidden_size // num_heads`): a configuration that gives it holds another, so it
        # is the configuration's own attribute, never the derivation
        path = f"{prefix}.{name}"
        it.env.dims[path] = DimInfo(path, f"`{path}` of a `{fr.cls.name}`")
        return OpaqueV(path, "int")
    return default_symbol(it, fr.cls.name, name, v, prefix)


def _list_of_ints(v: Value) -> bool:
    return isinstance(v, ListV) and bool(v.items) and all(isinstance(i, IntV) and i.expr.is_const for i in v.items)


def list_symbol(it, path: str, default: list) -> ListV:
    """A list of sizes by default (`hidden_sizes=[256, 512, 1024, 2048]`, `depths=[3, 4, 6, 3]`):
    its length as well as its items vary with the model built (a two-stage model passes two), so
    it is a list of unknown length whose `path[0]` reads as that symbol — never the default's
    stages, whose count and widths would make every later shape wrong."""
    it.env.dims[path] = DimInfo(path, f"`{path}` (default {default})", default=default)
    return ListV(None, UnknownV(f"{path}[i]"), name=path)


def symbol_noting(it, path: str, what: str, default) -> OpaqueV:
    """The symbol `path`, its hover origin saying what it is and its default. Written over what a
    use of the name wrote (`the value of ...`): the same table whether the classes were built now
    or by analyses restored from the cache (engine.compose_dims replays writes in program order)."""
    it.env.dims[path] = DimInfo(path, f"{what} (default {default})", default=default)
    if isinstance(default, int) and not isinstance(default, bool) and default < 1:
        # not a size (`shift_size=0`): a symbol is at least 1, which would rule out the default
        # itself, and `if self.shift_size > 0:` would hold for every construction
        it.env.bound_below(path, default)
    return OpaqueV(path, "int" if isinstance(default, int) and not isinstance(default, bool) else None)


def open_default_nones(init, inst):
    """`inst` (built by `init` with its defaults) with each attribute that holds a `None` default
    as it came (`self.downsample = downsample`) unknown: callers may pass a layer, so the methods'
    `if self.downsample is not None:` is undecided and both sides join."""
    nones = {id(v) for v in init.defaults.values() if isinstance(v, NoneV)}
    for name, v in list(inst.attrs.items()):
        if id(v) in nones or isinstance(v, DefaultNoneV):
            inst.attrs[name] = UnknownV(f"self.{name}")
    return inst


def name_copies(it, init, inst, prefix: str) -> None:
    """A configuration's attribute copied from a parameter of another name (`self.num_heads =
    n_head`) is named as the code reads it: `config.num_heads`."""
    for name, v in list(inst.attrs.items()):
        path = f"{prefix}.{name}"
        if isinstance(v, OpaqueV) and v.path.startswith(prefix + ".") and v.path != path:
            info = it.env.dims.get(v.path)
            it.env.dims[path] = DimInfo(path, info.origin, default=info.default) if info is not None \
                else DimInfo(path, f"`{v.path}`")
            inst.attrs[name] = OpaqueV(path, v.kind)


def typed_by_defaults(env: dict, defaults: dict) -> None:
    """An object known only by name passed for a parameter whose default is a float is a float
    (`eps=config.layer_norm_epsilon` for `eps=1e-6`): the default hints the parameter's type, as
    an annotation does, so `variance + self.eps` is a tensor plus a scalar. Never for an int
    default: an int parameter may receive a tuple (`kernel_size=3` given `(3, 5)`)."""
    for name, v in env.items():
        if isinstance(v, OpaqueV) and v.kind is None and isinstance(defaults.get(name), FloatV):
            env[name] = FloatV(None)
