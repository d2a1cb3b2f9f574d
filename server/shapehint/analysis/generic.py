"""What a function's parameters and `self` are in its own (generic) analysis: a parameter's
value from its annotation, default and use (`param_value`: tensors of unknown rank in the
parameter's name, configuration objects, containers, unions), and the generic instance that
stands for any instance of a class (`generic_instance`: `__init__` run with its defaults as
symbols, docs/analysis.md "Defaults are not facts"). Split from engine.py, which runs the
analyses."""
from __future__ import annotations

import ast
import dataclasses
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import BoolV, DefaultStrV, DictV, StrV, FloatV, IntV, ListV, NoneV, TensorV, TupleV, UnknownV
from .class_params import class_param, passed_as_classes
from .annotations import is_none, is_plain, union_members, unstring
from .frames import Frame, span_of
from .interp import Interp
from .hints import hint_of_one_tensor, int_or_tuple, read_as_sequence, sequence_only
from .defaults import default_symbol, name_copies, open_default_nones, symbol_noting
from .objects import CONFIG_NAMES, BuiltinFn, ClassObj, FuncObj, InstanceObj, OpaqueV, OpenArgsV, config_named
from .nested_configs import hold_generic_parts
from .optional_parts import open_optional_parts
from .reconfiguration import forget_held
from .unknown_sizes import name_unknown_sizes
from .result import DimInfo
from .usage import param_kind, tensor_uses



def param_value(it: Interp, f: FuncObj, p: ast.arg, fr: Frame, is_init: bool, prefix: str = "", own: bool = False):
    """`prefix`: the configuration object `f` (a configuration class's `__init__`) builds, whose
    attributes are named after it (`config.hidden_size`, defaults.py); `own`: for `f`'s own
    analysis, where a default is one value its callers may pass (`own_default`)."""
    v = _param_value(it, f, p, fr, is_init, prefix)
    return own_default(it, f, p.arg, v) if own and not is_init and p.arg in f.defaults else v


def _param_value(it: Interp, f: FuncObj, p: ast.arg, fr: Frame, is_init: bool, prefix: str):
    if p.annotation is not None and hint_of_one_tensor(p.annotation, lambda n: it._safe_eval(n, fr)) \
            and not read_as_sequence(f.node, p.arg):
        p = ast.arg(arg=p.arg, annotation=None, lineno=p.lineno, col_offset=p.col_offset,
                    end_lineno=p.end_lineno, end_col_offset=p.end_col_offset)  # a hint the body overrules (hints.py)
    seq = _read_as_tuple(it, f, p, fr) if is_init and p.annotation is not None else None
    if seq is not None:
        return seq
    union = _union_param(it, f, p, fr) if p.annotation is not None else None
    if union is not None:
        return union
    ann = it.annotation_shape(p.annotation, fr) if p.annotation is not None else None
    if ann is not None:
        return _annotated_tensor(it, f, p, ann, hint=p.annotation)
    if p.annotation is not None:
        chosen = class_param(p.annotation, lambda n: it._safe_eval(n, fr), it.classes, p.arg)
        if chosen is None and is_init:
            chosen = passed_as_classes(p.annotation, lambda n: it._safe_eval(n, fr), it.classes, f.node, p.arg,
                                       fr.globals)
        if chosen is not None:
            return chosen
        container = container_param(it, f, p, fr)
        if container is not None:
            return container
        node = unstring(p.annotation)  # `d: "int"`
        cls = it._safe_eval(node, fr) if node is not None else None
        if isinstance(cls, ClassObj) and not cls.is_module():
            return generic_instance(it, cls, p.arg)
        if isinstance(cls, BuiltinFn) and cls.name in ("int", "float", "bool", "str"):
            # `planes: int` is a number, not a tensor (its default, else a symbol of its name)
            if p.arg not in f.defaults:
                if cls.name == "float":
                    # a ratio may be 0.25: a symbol would be a size >= 1 (`patch * (1 - ratio)`
                    # would then be proven <= 0 for every input), and an opaque value may be a
                    # tensor (`ones(dim, 1, 1) * scale` had no shape)
                    return FloatV()
                return OpaqueV(f"{prefix}.{p.arg}" if prefix else p.arg, "int" if cls.name == "int" else None)
            v = f.defaults[p.arg]
            if cls.name == "float" and isinstance(v, IntV) and v.expr.value is not None:
                v = FloatV(float(v.expr.value))  # `ratio: float = 1` is a float (a symbol is an int size)
            return default_symbol(it, f.cls.name, p.arg, v, prefix) if is_init and f.cls is not None else _unpinned(v)
    if p.arg in f.defaults:
        v = _unpinned(f.defaults[p.arg])
        if is_init and isinstance(v, (TupleV, ListV)) and v.items is not None and not v.items:
            # `ch=()` (ultralytics' heads): a placeholder the callers fill, not a model with no
            # levels (whose `torch.cat` of no tensors would fail in every method)
            return ListV(None, UnknownV(f"{p.arg}[i]"))
        if is_init and f.cls is not None:
            # the class on its own: a default is one value callers may pass, not the value
            v = default_symbol(it, f.cls.name, p.arg, v, prefix)
        if isinstance(v, NoneV) and not is_init:
            if p.arg in tensor_uses(f.node) or _hinted_tensor(it, p, fr):
                # `mask=None` read as a tensor here: an optional tensor, so the generic analysis
                # also walks the side of `if mask is not None` that has it (controlflow._if_optional)
                return TensorV(Shape.unknown(it.param_star(p.arg, f.qualname)), None, span_of(p), optional=True)
            if p.arg in _tensor_names(it):
                # only passed on here (`self.attn(x, mask)`): the analysis goes on as if it were
                # omitted, and a decision that depends on that is marked (Frame.assumes_default);
                # constructor defaults are the model's configuration, flags are not tensors
                v = NoneV()
                it.omitted.add(id(v))
        return v
    if is_init or p.arg in CONFIG_NAMES or param_kind(f.node, p.arg) == "opaque":
        cfg_cls = config_class(it, p.arg)
        if cfg_cls is not None:
            return generic_instance(it, cfg_cls, p.arg)
        return OpaqueV(f"{prefix}.{p.arg}" if prefix else p.arg)
    return TensorV(_given_rank(it, f, p.arg, Shape.unknown(it.param_star(p.arg, f.qualname))), None, span_of(p),
                   maybe_sequence=True)


def own_default(it: Interp, f: FuncObj, name: str, v):
    """`v`, the value a function's own analysis gives parameter `name` of `f`, with an int default
    (`def pool(x, k=3)`, called with 5) a symbol of its name, the default noted (hover: "default
    3"), and a string or bool default one that decides nothing, as a constructor's are
    (`defaults.default_symbol`): a line `F.max_pool2d(x, k)` claimed `H//3` for every call. The
    calls' contexts bind what they pass, or the default they omit."""
    if v is not f.defaults.get(name):
        return v
    if isinstance(v, IntV) and v.expr.is_const:
        return symbol_noting(it, name, f"parameter `{name}` of `{f.qualname}`", v.expr.value)
    if isinstance(v, StrV) and v.value is not None or isinstance(v, BoolV) and v.pred is not None and (
            v.pred.is_true or v.pred.is_false):
        # a mode (`kind="avg"`) or a flag (`flatten=True`): both arms of the decisions it makes,
        # the other value's quiet (flags.py, values.DefaultStrV)
        return default_symbol(it, f.qualname, name, v)
    return v


def _unpinned(v):
    """A default as a function's own analysis reads it: a float (`width=1.0`, a multiplier of a
    factory whose callers pass 0.5) is any float, so no size computed from it (`int(16 * width)`)
    is claimed for every call; a constructor's defaults are `default_symbol`'s."""
    return FloatV() if isinstance(v, FloatV) and v.value is not None else v


def _annotated_tensor(it: Interp, f: FuncObj, p: ast.arg, ann, optional: bool = False, hint=None) -> TensorV:
    """`hint`: the annotation read; a bare type (`torch.Tensor`) is a hint callers may not keep
    (a tuple of feature maps passed as `hidden_states: torch.Tensor`), a shape annotation a fact."""
    shape, dtype = ann
    if shape.star is not None and shape.star.startswith("?"):
        star = it.param_star(p.arg, f.qualname)
        shape = _given_rank(it, f, p.arg, Shape(shape.dims, star, shape.suffix))
    for i, d in enumerate(shape.dims):
        for s in d.symbols():
            if not s.startswith("?"):
                it.env.dims.setdefault(s, DimInfo(s, f"annotation of `{p.arg}` (axis {i}) on line {p.lineno}"))
    bare = isinstance(unstring(hint), (ast.Name, ast.Attribute))
    return TensorV(shape, dtype, span_of(p), optional=optional, maybe_sequence=bare)


def _read_as_tuple(it: Interp, f: FuncObj, p: ast.arg, fr: Frame):
    """`res: Union[int, Tuple[int, int]]` without a default, which the module reads only as a
    sequence: the tuple (hints.py), as an int would raise at the first read; else None."""
    a = f.node.args
    inst = fr.env.get((a.posonlyargs + a.args)[0].arg) if p.arg not in f.defaults and a.posonlyargs + a.args else None
    if not isinstance(inst, InstanceObj) or not inst.cls.is_module():
        return None  # (the instance of another class may be read by any code that holds it)
    tup = int_or_tuple(p.annotation, lambda n: it._safe_eval(n, fr), fr.globals.get)
    if tup is None:
        return None
    classes, todo = [], [inst.cls]
    while todo:
        c = todo.pop()
        if isinstance(c, ClassObj) and c.node is not None and all(c is not k for k in classes):
            classes.append(c)
            todo.extend(c.bases)
    if not sequence_only([c.node for c in classes], f.node, p.arg):
        return None
    return container_param(it, f, ast.arg(arg=p.arg, annotation=tup, lineno=p.lineno, col_offset=p.col_offset,
                                          end_lineno=p.end_lineno, end_col_offset=p.end_col_offset), fr)


def _hinted_tensor(it: Interp, p: ast.arg, fr: Frame) -> bool:
    """`x: Optional[Tensor] = None`: the hint says callers pass a tensor or nothing."""
    if p.annotation is None:
        return False
    members = union_members(p.annotation, lambda n: it._safe_eval(n, fr))
    rest = [m for m in members or () if not is_none(m)]
    return len(rest) == 1 and len(members) > 1 and it.annotation_shape(rest[0], fr) is not None


def _union_param(it: Interp, f: FuncObj, p: ast.arg, fr: Frame):
    """A parameter annotated with a union: `Optional[Tensor]` without a default is a tensor that
    may be None (an optional tensor); `int | tuple[int, int]` or `Optional[int]` without one is
    no tensor but an opaque value of its name; `Union[Tensor, List[Tensor]]` without one is either,
    so unknown (a dense layer's `isinstance(x, Tensor)` runs both arms, and the list's calls are
    not listed in the names of the tensor's); anything else, None (read as if unannotated)."""
    members = union_members(p.annotation, lambda n: it._safe_eval(n, fr))
    if members is None:
        return None
    rest = [m for m in members if not is_none(m)]
    if rest and all(is_plain(m) for m in rest):
        return None if p.arg in f.defaults else OpaqueV(p.arg)  # a default is read as without one
    if len(rest) > 1 and p.arg not in f.defaults and any(_sequence_name(m) in SEQUENCES for m in rest):
        return UnknownV(p.arg)
    if len(rest) == 1 and len(members) > 1 and p.arg not in f.defaults:
        ann = it.annotation_shape(rest[0], fr)
        if ann is not None:
            return _annotated_tensor(it, f, p, ann, optional=True, hint=rest[0])
    return None


SEQUENCES = {"List", "list", "Sequence", "MutableSequence", "Iterable", "Tuple", "tuple"}
MAPPINGS = {"Dict", "dict", "Mapping", "MutableMapping", "OrderedDict"}


def _sequence_name(node) -> Optional[str]:
    base = node.value if isinstance(node, ast.Subscript) else node
    return base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None


def container_param(it: Interp, f: FuncObj, p: ast.arg, fr: Frame):
    """`features: List[Tensor]`, `x: tuple[Tensor, Tensor]`, `cfg: dict`: a list of unknown length
    (its items unknown: a feature pyramid's levels have different shapes, so no one symbolic
    tensor may stand for them all), a tuple of that many values (tensors of their own shapes),
    an open dict — never a tensor, which the unannotated default would make it."""
    ann = unstring(p.annotation)
    base, arg = (ann.value, ann.slice) if isinstance(ann, ast.Subscript) else (ann, None)
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    if name in MAPPINGS:
        return DictV({}, open=True)
    if name not in SEQUENCES:
        return None
    items = list(arg.elts) if isinstance(arg, ast.Tuple) else [arg] if arg is not None else []
    fixed = name in ("Tuple", "tuple") and items and not (
        len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis)
    if not fixed:
        ints = bool(items) and isinstance(items[0], ast.Name) and items[0].id == "int"
        return ListV(None, UnknownV(f"{p.arg}[i]"), name=p.arg if ints else None)
    out = []
    for i, item in enumerate(items):
        if isinstance(item, ast.Name) and item.id == "int":  # `Tuple[int, int]`: an int, as `planes: int`
            out.append(OpaqueV(f"{p.arg}[{i}]", "int"))
            continue
        ann_i = it.annotation_shape(item, fr)
        if ann_i is None:
            out.append(UnknownV(f"{p.arg}[{i}]"))
            continue
        shape, dtype = ann_i
        if shape.star is not None and shape.star.startswith("?"):
            shape = Shape(shape.dims, it.param_star(f"{p.arg}[{i}]", f.qualname), shape.suffix)
        out.append(TensorV(shape, dtype, span_of(p)))
    tup = TupleV(tuple(out))
    it.hinted.add(id(tup))  # `attention_inputs: tuple[torch.Tensor]` is loosely meant: no SH111 on its length
    return tup


def _given_rank(it: Interp, f: FuncObj, name: str, shape: Shape) -> Shape:
    """`shape` (of unknown rank) with the rank `engine.analyze(ranks=...)` gives the parameter."""
    rank = it.param_ranks.get(f.qualname, {}).get(name)
    k = rank - len(shape.dims) - len(shape.suffix) if rank is not None else -1
    if k < 0:
        return shape
    dims = []
    for i in range(len(shape.dims), len(shape.dims) + k):
        sym = f"{name}.shape[{i}]"
        it.env.dims.setdefault(sym, DimInfo(sym, f"parameter `{name}`, axis {i} (rank {rank} tried for the migration)"))
        dims.append(Expr.sym(sym))
    return Shape(shape.dims + tuple(dims) + shape.suffix)


def _tensor_names(it: Interp) -> set:
    cached = getattr(it, "_tensor_names", None)
    if cached is None or cached[0] != len(it.functions):
        from .usage import tensor_names
        cached = it._tensor_names = (len(it.functions), tensor_names(it.functions))
    return cached[1]


def config_class(it: Interp, name: str):
    """`def __init__(self, config)`: the module's one configuration class (a dataclass or a class
    named `*Config`) stands for it, so the layers get the configured sizes."""
    if not config_named(name):
        return None
    # (a dataclass over another library's class is an output record, `BertOutput(ModelOutput)`,
    # not a configuration: its fields are not all it holds)
    found = [c for c in it.classes if not c.is_module() and (c.is_dataclass and not c.foreign_bases()
                                                             or c.name.lower().endswith(("config", "cfg")))]
    return found[0] if len(found) == 1 else None


def generic_instance(it: Interp, cls: ClassObj, prefix: str = ""):
    """The instance standing for any of `cls`; `prefix`: the parameter that holds it (`config`),
    which names its attributes (defaults.py), else they are named after `cls`'s parameters."""
    key = (cls, prefix) if prefix else cls
    inst = it.generic_instances.get(key)
    if inst is not None:
        return inst
    inst = InstanceObj(cls, {}, None, held_by=prefix)
    it.generic_instances[key] = inst
    if cls.writes_dataclass_init():
        owner = prefix or f"{cls.name[:1].lower()}{cls.name[1:]}"
        for n, d in cls.fields:
            inst.attrs[n] = OpaqueV(f"{owner}.{n}") if d is None else default_symbol(it, cls.name, n, d, owner)
        return forget_state(cls, inst)
    init = cls.lookup("__init__")
    if isinstance(init, FuncObj) and construct(it, init, inst, open_nones=False, prefix=prefix) == "raise":
        # its defaults do not build one (`FractionalMaxPool2d()`: "requires an output_size or an
        # output_ratio"): build it again with the `None` defaults unknown, so the methods are
        # analysed with an instance some constructor call builds, not with the refused one
        inst.attrs.clear()
        construct(it, init, inst, open_nones=True, prefix=prefix)
    elif isinstance(init, FuncObj) and not it.as_built:
        # parts built only for given arguments are unknown, not absent (optional_parts)
        open_optional_parts(inst, init, lambda i, o, make: construct(it, i, o, False, given=make, prefix=prefix))
    if isinstance(init, FuncObj):
        if not it.as_built:
            open_default_nones(init, inst)
        if prefix:
            name_copies(it, init, inst, prefix)
            hold_generic_parts(inst, init, prefix, lambda c, p: generic_instance(it, c, p))
        name_unknown_sizes(it, inst)
    return forget_state(cls, inst)


def own_copy(inst: InstanceObj, memo: Optional[dict] = None) -> InstanceObj:
    """The generic instance as one method's analysis starts from it: its own attributes, and
    those of the user parts it holds — `set_input_embeddings(value)` writing
    `self.embeddings.word_embeddings = value` changes a part, not the part `forward` starts from."""
    memo = {} if memo is None else memo
    got = memo.get(id(inst))
    if got is None:
        got = memo[id(inst)] = dataclasses.replace(inst, attrs={})
        got.attrs.update({k: own_copy(v, memo) if isinstance(v, InstanceObj) else v for k, v in inst.attrs.items()})
    return got


def forget_state(cls: ClassObj, inst: InstanceObj) -> InstanceObj:
    """The generic instance stands for one at any point of its life: an attribute that other
    methods assign (`self.hidden = None` in `__init__`, set by `init_hidden()`; a counter; a
    list they fill) is not known to keep its `__init__` value — `assert self.hidden is not None`
    is not an error. Layers and tensors keep theirs (a `reset_classifier()` that replaces
    `self.head` must not cost the model's shapes), and so do the numbers a method that replaces
    them sets beside them (reconfiguration.py). So do the objects it holds, at any point of
    theirs: a store's slots that `update` fills (a slot's `keys`, empty as constructed, are as
    long as every earlier call made them)."""
    forget_held(inst, cls)
    return inst


def construct(it: Interp, init: FuncObj, inst: InstanceObj, open_nones: bool, given=None,
               prefix: str = "", flag=None, kwargs=None, fixed=None):
    """Run `init` on `inst` with its defaults (`open_nones`: a `None` default is unknown;
    `given`: a value of its name instead, made by `given(name)`, errors on that path not
    reported — it only tells which parts a caller's argument builds, optional_parts; `prefix`: what names a config's attributes,
    defaults.py; `flag`: what a flag left undecided, or a string default, is instead, and `kwargs`
    its `**kwargs`, `fixed` the values of some parameters, flag_defaults.py); the flow it
    ends with ("raise" when every path raises)."""
    fr = Frame({}, init.qualname, it.new_store(), init.globals, cls=init.cls, record=False)
    fr.caught = 1 if given else 0
    a = init.node.args
    params = a.posonlyargs + a.args
    for i, p in enumerate(params + a.kwonlyargs):
        v = inst if i == 0 and params else param_value(it, init, p, fr, True, prefix)
        if isinstance(v, NoneV) and (open_nones or given):
            v = given(p.arg) if given else UnknownV(p.arg)
        elif flag is not None and (isinstance(v, BoolV) and v.pred is None and v.at_default is not None
                                   or isinstance(v, DefaultStrV)):
            v = flag(v)
        fr.env[p.arg] = fixed[p.arg] if fixed and p.arg in fixed else v
    if a.vararg is not None:
        fr.env[a.vararg.arg] = OpenArgsV()
    if a.kwarg is not None:
        fr.env[a.kwarg.arg] = kwargs if kwargs is not None else DictV({}, open=True)
    fr.self_obj = inst
    return it.exec_block(init.node.body, fr)
