"""Values only the interpreter creates: user functions, classes, instances, opaque objects,
ranges, methods before their call, workspace modules. The parts of the interpreter share them;
none of them lives in the file of a part that uses it."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from ..shapes.expr import Expr
from ..shapes.values import _BORN, ExtRef, IntV, ListV, ModuleV, TensorV, UnknownV, Value


@dataclass(eq=False)
class FuncObj(Value):
    node: ast.FunctionDef
    qualname: str
    globals: dict
    cls: Optional["ClassObj"] = None
    defaults: dict = field(default_factory=dict)
    module_path: str = ""
    closure: Optional[Mapping] = None  # the enclosing functions' names, live (closures.py)

    def describe(self) -> str:
        return f"function {self.qualname}"


@dataclass(eq=False)
class SpreadV(Value):
    """`*seq` of a list of unknown length, as the last positional arguments of a call (spread.py)."""
    seq: ListV


@dataclass(eq=False)
class OpenArgsV(UnknownV):
    """The `*args` of the construction the generic analysis stands for: any positional
    arguments. Spread into a user function with the rest (spread.py), it binds nothing it names
    and leaves the callee's defaults open, as an open `**kwargs` does; anything else reads it
    as unknown."""
    reason: str = "*args"


@dataclass(eq=False)
class ShapeAliasV(Value):
    """`Batch = Float[Tensor, "B T C"]` (or `Batch: TypeAlias = ...`, `type Batch = ...`): the
    annotation it names, read where it is used (`def f(x: Batch)`) in its own module's names."""
    node: ast.AST
    globals: dict

    def describe(self) -> str:
        return "shape annotation"


MODULE = {"torch.nn.Module", "torch.nn.modules.module.Module"}
SEQUENTIAL = {"torch.nn.Sequential", "torch.nn.modules.container.Sequential"}
CONTAINER_BASES = SEQUENTIAL | {"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.modules.container.ModuleList",
                                "torch.nn.modules.container.ModuleDict"}


@dataclass(eq=False)
class ClassObj(Value):
    name: str
    qualname: str
    node: Optional[ast.ClassDef]
    bases: list
    attrs: dict
    is_dataclass: bool = False
    fields: list = field(default_factory=list)  # [(name, default Value | None)]
    module_path: str = ""

    def lookup(self, name: str) -> Optional[Value]:
        if name in self.attrs:
            return self.attrs[name]
        for b in self.bases:
            if isinstance(b, ClassObj):
                v = b.lookup(name)
                if v is not None:
                    return v
        return None

    def dataclass_fields(self) -> list:
        """The dataclass fields in `__init__`'s order: the dataclass bases' (walking the MRO in
        reverse), then its own; a field declared again keeps its first place, with its new default."""
        out: dict = {}
        for b in reversed(self.bases):
            if isinstance(b, ClassObj) and b.is_dataclass:
                out.update(b.dataclass_fields())
        out.update(self.fields)
        return list(out.items())

    def writes_dataclass_init(self) -> bool:
        """Whether `@dataclass` wrote this class's `__init__`: it does so in every dataclass that
        defines none itself, whatever `__init__` a base has (an output class over a mapping base
        whose `__init__(*args, **kwargs)` only checks it is a dataclass)."""
        return self.is_dataclass and "__init__" not in self.attrs

    def generated_init_owner(self) -> Optional["ClassObj"]:
        """The dataclass whose generated `__init__` `super().__init__(...)` in this class reaches
        (no `__init__` written in between), or None."""
        for b in self.bases:
            if isinstance(b, ClassObj):
                if b.writes_dataclass_init():
                    return b
                if b.lookup("__init__") is not None:
                    return None
                found = b.generated_init_owner()
                if found is not None:
                    return found
        return None

    def is_module(self) -> bool:
        for b in self.bases:
            if isinstance(b, ExtRef) and (b.path in MODULE or b.path in CONTAINER_BASES):
                return True
            if isinstance(b, ClassObj) and b.is_module():
                return True
        return False

    def callable_like_a_module(self) -> bool:
        """A module, or a class with a `forward`, no `__call__`, and an ancestor from another
        library (`class BertModel(BertPreTrainedModel)` over transformers' PreTrainedModel,
        diffusers' ModelMixin, Lightning's LightningModule): calling an instance runs its forward.
        Over a torch layer (`class LayerNorm(nn.LayerNorm)`) it is the instance that decides: its
        forward reads what the layer's own __init__ set (`self.normalized_shape`), which only an
        instance built through `super().__init__(dim)` holds (`InstanceObj.base_layer`)."""
        if self.is_module():
            return True
        if self.lookup("__call__") is not None or not isinstance(self.lookup("forward"), FuncObj):
            return False
        foreign = self.foreign_bases()
        return bool(foreign) and not any(p.startswith("torch.") for p in foreign)

    def foreign_bases(self, depth: int = 0) -> list:
        """The paths of the ancestors we did not read (`builtins.dict` for a builtin type),
        `object` left out."""
        out: list = []
        for b in self.bases:
            if isinstance(b, ClassObj):
                if depth < 64:
                    out += b.foreign_bases(depth + 1)
            elif isinstance(b, ExtRef):
                out.append(b.path)
            elif isinstance(b, BuiltinFn):
                if b.name != "object":
                    out.append(f"builtins.{b.name}")
            else:
                out.append("?")  # a base the analysis could not name
        return out

    def is_sequential(self) -> bool:
        """A subclass of nn.Sequential: without a forward of its own, a call runs its layers in order."""
        return any(isinstance(b, ExtRef) and b.path in SEQUENTIAL or isinstance(b, ClassObj) and b.is_sequential()
                   for b in self.bases)

    def describe(self) -> str:
        return f"class {self.qualname}"


UNKNOWN_MODULES = "<modules not known>"  # the attribute `add_module` with a name not known sets


@dataclass(eq=False)
class InstanceObj(Value):
    cls: ClassObj
    attrs: dict = field(default_factory=dict)
    span: Any = None  # where it was constructed
    seq: Optional[list] = None  # a Sequential subclass's layers from `super().__init__(conv, bn, act)`
    # a subclass of a torch layer: that layer as `super().__init__(dim, eps=...)` built it, whose
    # state (`self.weight`, `self.normalized_shape`) the subclass's forward reads
    base_layer: Optional[Value] = None
    # a mapping subclass's own items (`Table(entries)`, `super().__init__(entries)`), and what
    # reading it with a key not known gives, found once (tables.py)
    items: Optional[Value] = None
    any_item: Optional[Value] = None
    held_by: str = ""  # the parameter a generic instance stands for (`config`), naming what it holds
    cut: bool = False  # a constructor of it was cut off: it is unfinished (unfinished.py)
    unwritten: bool = False  # a plain base's constructor was cut off: what it holds not else is unknown (unfinished.py)
    many: bool = False  # read as the item of a list of unknown length: it stands for several (many_items.py)
    own_writes: Optional[dict] = None  # attr -> (frame, value left, value written) through a method's receiver
    # own_entries.py: the entries read as this item's in a loop's pass (views), and an entry's item (view_of)
    views: Optional[list] = None
    view_of: Optional["InstanceObj"] = None
    # (parameter, path) of the nested configuration its constructor took (`config`,
    # `config.text_config`: nested_configs.py); ("", "") where its constructors took several
    built_with: tuple = ()
    # the attribute names it may hold, any other absent (a configuration at its class's defaults:
    # absent_attrs.py); None: any
    closed: Optional[frozenset] = None

    def __post_init__(self):
        self.born = next(_BORN)  # creation order (shapes/values.py)

    def describe(self) -> str:
        return f"{self.cls.name} instance"

    def registered_modules(self) -> Optional[list]:
        """(name, layer) of the modules it registered, in order: those given to a Sequential
        subclass's `super().__init__`, then those assigned or `add_module`d; None when one was
        registered under a name not known (UNKNOWN_MODULES)."""
        if UNKNOWN_MODULES in self.attrs:
            return None
        out = [(str(i), v) for i, v in enumerate(self.seq or [])]
        return out + [(k, v) for k, v in self.attrs.items()
                      if isinstance(v, ModuleV) or isinstance(v, InstanceObj) and v.cls.is_module()]


@dataclass(eq=False)
class BoundMethod(Value):
    func: FuncObj
    self_obj: Value


@dataclass(eq=False)
class NumberOrTensor(UnknownV):
    """A number on some paths and a tensor on others (number_or_tensor.py): unknown to all code
    but the arithmetic that combines it with a tensor."""
    number: Optional[Value] = None
    tensor: Optional[TensorV] = None


@dataclass(eq=False)
class HyperparameterV(UnknownV):
    """A number on some paths and a configuration's item on others, never a tensor (operands.py):
    unknown to all code but the arithmetic that combines it with a tensor."""


@dataclass(eq=False)
class SizedHyperparameterV(HyperparameterV):
    """A configuration's attribute on some paths and an int on the others (`config.n_inner if
    config.n_inner is not None else 4 * hidden`): a hyperparameter, and, where an operation takes
    an int of it (a layer's size), `size`, one fresh symbol for every such use (operands.py)."""
    size: Optional[Expr] = None


@dataclass(eq=False)
class OpaqueV(Value):
    """An object known only by name (an unannotated parameter, a config attribute).

    Used as an int it becomes the symbol of that name (`d_model`, `config.n_embd`)."""

    path: str
    # "int" where it stands for an int (a parameter annotated `int`, or an int default's symbol):
    # `isinstance(stride, (tuple, list))` is then decided, as its arithmetic already assumes
    kind: Optional[str] = None


class GivenV(OpaqueV):
    """An argument a caller gives where the default is `None` (optional_parts.py): known only by
    name, and not None."""


# names a configuration object goes by (a parameter `config`, an attribute `self.model_cfg`)
CONFIG_NAMES = {"config", "cfg", "args", "opt", "hparams", "params", "conf", "settings"}


def config_named(name: str) -> bool:
    low = name.lower()
    return low in CONFIG_NAMES or low.endswith(("config", "cfg"))


@dataclass(eq=False)
class SuperV(Value):
    cls: ClassObj
    self_obj: Value


@dataclass(eq=False)
class BuiltinFn(Value):
    name: str


@dataclass(eq=False)
class PartialV(Value):
    """`functools.partial(func, *args, **kwargs)`: a call of it calls `func` with these first
    (timm's and torchvision's `norm_layer=partial(nn.LayerNorm, eps=1e-6)`)."""
    func: Value
    args: tuple
    kwargs: dict

    def describe(self) -> str:
        return f"partial({self.func.describe()})"


@dataclass(eq=False)
class VmapV(Value):
    """`torch.vmap(func, in_dims, out_dims)`, the dims as given: a call maps `func` (vmaps.py)."""
    func: Value
    in_dims: Value
    out_dims: Value

    def describe(self) -> str:
        return f"vmap({self.func.describe()})"


@dataclass(eq=False)
class SetV(Value):
    """A set of known items (classvalues.py): what `in` asks of it is decided; None once one of
    its methods may have changed it."""
    items: Optional[tuple]


@dataclass(eq=False)
class ChoiceV(Value):
    """One of several known callables the analysis cannot tell apart (choices.py): a registry
    read with a key it does not know (`LAYERS[cfg.kind]`), or the arms of an undecided `if`
    that bound different layers or functions. Calling it calls each option and joins the
    results, so where every option gives the same shape that is the shape. `conds`: for each
    option, a condition that holds wherever it was taken (None: none known; choices.conditioned).
    `name`: the parameter it is the value of, when a class parameter's (class_params.py)."""
    options: tuple
    conds: Optional[tuple] = None
    name: Optional[str] = None

    def describe(self) -> str:
        return "one of " + ", ".join(o.describe() for o in self.options)


@dataclass(eq=False)
class FloatLimits(Value):
    """`torch.finfo(dtype)`: a float dtype's limits (classvalues.other_attr), each a float of
    unknown value (a mask's `(1.0 - m) * torch.finfo(dtype).min` is then a tensor)."""


@dataclass(eq=False)
class TorchDir(Value):
    """`dir(m)` of a torch module `m` (its dotted path): holds what a rule exists for (torch_names.py)."""

    path: str


@dataclass(eq=False)
class OpenChoiceV(UnknownV):
    """Known callables and one the analysis cannot see, joined (open_choices.py): unknown to every
    use but a call, which runs the known options in that context and gives an unknown result."""
    options: tuple = ()


@dataclass(eq=False)
class DictChoiceV(UnknownV):
    """One of several dicts of known keys, joined (dict_choices.py): unknown to every use but a
    `**` spread into a call, which takes one option at a time."""
    options: tuple = ()


@dataclass(eq=False)
class ListChoiceV(UnknownV):
    """One of several lists of known layers, joined (list_choices.py): unknown to every use but a
    spread into a call and a loop, which take one option at a time."""
    options: tuple = ()


@dataclass(eq=False)
class UnionAliasV(UnknownV):
    """`_int_or_tuple = Union[int, Tuple[int, int]]`: unknown to every use, but a parameter it
    annotates reads its members (the annotation nodes, hints.int_or_tuple)."""
    members: tuple = ()


@dataclass(eq=False)
class MaybeNoneV(UnknownV):
    """None on some paths, `given` (an instance, or a choice of instances) on the others: unknown
    to every test, read as `given` in the arms of a `None` test (maybe_none.py)."""

    given: Optional[Value] = None


@dataclass(eq=False)
class OpenTupleV(UnknownV):
    """A tuple with at least `len(head)` items, those first, and `tail` last (as many): unknown to
    every other use (open_tuples.py)."""

    head: tuple = ()
    tail: tuple = ()


class AlikeCount(IntV):
    """A counted loop's marker at a registration site, where every pass builds its module alike
    (loop_counts.passes_alike)."""


class AlikeRun(UnknownV):
    """Such a loop's marker where its count is not known: one per run, as a count is."""


@dataclass(eq=False)
class TupleOrOutputV(UnknownV):
    """A tuple on some paths, an object with `__getitem__` on others (tuple_or_output.py): unknown
    to every use but an index by a constant, which reads each option."""

    options: tuple = ()


@dataclass(eq=False)
class KeepsShapeV(Value):
    """One of a table's callables, read with a key not known, where every entry maps a tensor of
    any shape to one of the same shape and dtype (tables.py: elementwise activations): calling
    it gives its argument's shape, without calling each entry again."""
    options: int
    min_rank: int = 0  # 1: an entry keeps only shapes of at least one axis (a 1-axis slope broadcasts a scalar)

    def describe(self) -> str:
        return f"one of {self.options} callables, each keeping the shape"


class OpenKwargs(dict):
    """Keyword arguments that a caller's open `**kwargs` (DictV.open) may add to: a parameter
    the call leaves at its default may not take it (Frame.open_defaults). The call carries it
    to the callee that binds it, in place of a plain dict."""
    sizes = False  # the caller's dict may hold sizes only (sized_kwargs.py)


class OwnIndex(UnknownV):
    """A comprehension's index over a range of unknown length: not known, another in each item
    (own_entries.py)."""


class RangeV(Value):
    """`range(start, stop, step)`."""

    def __init__(self, start: Expr, stop: Expr, step: Expr):
        self.start, self.stop, self.step = start, stop, step


class TensorMethod(Value):
    """`x.view` before it is called."""

    def __init__(self, target: TensorV, name: str):
        self.target, self.name = target, name


class BoundOp(Value):
    """A method of a list, dict, module or instance handled by the interpreter (`append`, ...)."""

    def __init__(self, target: Value, name: str):
        self.target, self.name = target, name


class ModuleNS(Value):
    """A module of the workspace, imported (imports.py): its globals."""

    def __init__(self, path: str, attrs: dict):
        self.path, self.attrs = path, attrs
        self.loading = False  # its body is running (a name not there yet may come later)

    def describe(self) -> str:
        return f"module {os.path.basename(self.path)}"


class LazyImport(Value):
    """A name an imported module's top-level import binds, not yet looked up (imports.py): the
    module it names is loaded when the name is first read, so a package's `__init__` that
    re-exports a hundred names costs only the modules whose names are used. `attr` None: the
    module itself (`import pkg.sub as m`). Reads resolve it (`Interp.resolve_import`) before any
    other part sees it."""

    def __init__(self, directory: str, module: str, level: int, attr: Optional[str]):
        self.directory, self.module, self.level, self.attr = directory, module, level, attr

    def describe(self) -> str:
        return f"import of {self.attr or self.module}"
