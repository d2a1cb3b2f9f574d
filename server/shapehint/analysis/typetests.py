"""`isinstance(value, classinfo)` where the abstract value's kind answers it.

Real model code dispatches on kinds everywhere (`if isinstance(axis, (list, tuple))`,
`isinstance(x, torch.Tensor)`, `isinstance(m, nn.Linear)`); left undecided, both arms run,
and a recursive helper such as HF Funnel's `stride_pool` re-enters itself with unknowns at
every level. The answer is True or False only where Python's would be the same for every
concrete value the abstract one stands for; anything else (an unknown value, a class we do not
know the ancestry of, a layer class that may subclass another) is None: undecided.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import (BoolV, DictV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV, NumberV, StrV, TensorV,
                             TupleV, Value)
from .objects import MODULE, BuiltinFn, ChoiceV, ClassObj, FuncObj, InstanceObj, OpaqueV, PartialV, SetV

TENSOR = {"torch.Tensor"}
# other libraries' array classes: no torch tensor is an instance of one (`elif isinstance(boxes,
# np.ndarray)` after a test for a torch tensor the analysis could not decide)
FOREIGN_ARRAYS = {"numpy.ndarray", "numpy.generic"}
SIZE = {"torch.Size"}
# the builtin type each plain value kind is exactly (a bool is also an int)
_BUILTIN = {IntV: {"int"}, FloatV: {"float"}, BoolV: {"bool", "int"}, StrV: {"str"}, ListV: {"list"},
            TupleV: {"tuple"}, DictV: {"dict"}, SetV: {"set"}}
# the abstract base classes plain values are checked against (`to_2tuple`'s `isinstance(x,
# collections.abc.Iterable) and not isinstance(x, str)`), and the kinds that are instances
_ITERABLE = {TupleV, ListV, StrV, DictV}
_ABCS = {**{f"{m}.{n}": kinds for m in ("collections.abc", "typing") for n, kinds in (
    ("Iterable", _ITERABLE), ("Collection", _ITERABLE), ("Sequence", {TupleV, ListV, StrV}),
    ("Mapping", {DictV}))}}
MAX_ALTERNATIVES = 8  # a classinfo's choices expanded, each path's tuple of classes
_BUILTIN_TYPES = {"int", "float", "bool", "str", "list", "tuple", "dict", "set", "frozenset", "bytes", "complex"}


def isinstance_of(value: Value, classinfo: Value, torch_made: bool = False) -> Optional[bool]:
    """`torch_made`: the tensors of this analysis all come from torch (`inputs_are_tensors`).
    A class chosen on paths the analysis joined (`BlockMask` imported where a feature is
    available, else bound to `torch.Tensor`) answers when every option answers alike."""
    found = set()
    for targets in _alternatives(classinfo):
        if targets is None:
            return None
        answers = [_one(value, t, torch_made) for t in targets]
        found.add(True if True in answers else False if all(a is False for a in answers) else None)
    return found.pop() if len(found) == 1 else None


def _alternatives(classinfo: Value) -> list:
    """The flattened classinfo of each path: a choice of classes (in a tuple too) expands to its
    options, at most MAX_ALTERNATIVES of them; [None] where one is not a class."""
    out: list = [[]]
    for item in classinfo.items if isinstance(classinfo, TupleV) else (classinfo,):
        options = item.options if isinstance(item, ChoiceV) and item.options else (item,)
        if len(out) * len(options) > MAX_ALTERNATIVES:
            return [None]
        flat = [_flatten(o) for o in options]
        if any(f is None for f in flat):
            return [None]
        out = [prev + f for prev in out for f in flat]
    return out


def subclass_of(value: Value, classinfo: Value) -> Optional[bool]:
    """`issubclass(value, classinfo)`: decided for a class of the analysed code against one whose
    ancestry is read (`issubclass(mixer, Attention)` choosing a stage's layout), for a torch class
    against a class of the analysed code (which it never derives from), and for a choice of
    classes where every option answers alike; None for anything else."""
    targets = _flatten(classinfo)
    if targets is None:
        return None
    if isinstance(value, ChoiceV):
        answers = {subclass_of(o, classinfo) for o in value.options}
        return answers.pop() if len(answers) == 1 else None
    answers = [_subclass(value, t) for t in targets]
    if True in answers:
        return True
    return False if all(a is False for a in answers) else None


def _subclass(value: Value, target: Value) -> Optional[bool]:
    if isinstance(target, BuiltinFn) and target.name == "object":
        return True if isinstance(value, (ClassObj, ExtRef)) and class_or_function(value) else None
    if isinstance(value, ClassObj) and (isinstance(target, ClassObj) or isinstance(target, ExtRef) and target.path in MODULE):
        return _instance(value, target)  # (`isinstance(obj, T)` is `issubclass(type(obj), T)`)
    if isinstance(value, ExtRef) and class_or_function(value) and isinstance(target, ClassObj):
        return False
    return None


def _flatten(classinfo: Value) -> Optional[list]:
    if isinstance(classinfo, TupleV):
        out: list = []
        for item in classinfo.items:
            sub = _flatten(item)
            if sub is None:
                return None
            out += sub
        return out
    if isinstance(classinfo, (BuiltinFn, ExtRef, ClassObj)):
        return [classinfo]
    return None


def _one(value: Value, target: Value, torch_made: bool = False) -> Optional[bool]:
    if isinstance(target, BuiltinFn) and target.name == "object":
        return True
    if _CALLABLE_TARGETS.get(_target_name(target)) is not None:
        return _callable_is(value, _CALLABLE_TARGETS[_target_name(target)])
    if isinstance(target, BuiltinFn) and target.name not in _BUILTIN_TYPES:
        return None
    if isinstance(value, TensorV):
        return _tensor(value, target, torch_made)
    if isinstance(value, NoneV):
        return False
    if isinstance(value, PartialV) and _never_a_partials_class(target):
        return False  # (a `functools.partial` object: no str, bool, layer or tensor, nor the class it wraps)
    if class_or_function(value) and isinstance(target, BuiltinFn) and target.name in _BUILTIN_TYPES:
        return False  # (`entry if isinstance(entry, tuple) else (entry, {})` in a table of classes)
    if isinstance(value, NumberV) and isinstance(target, BuiltinFn) and target.name in ("int", "float"):
        return None  # an int on some paths, a float on others
    if _plain_class_or_function(value) and isinstance(target, ExtRef) and target.path in _ABCS:
        return False  # (`to_ntuple(4)(block)` of a block class: repeated, never iterated)
    if isinstance(value, ChoiceV) and value.options and all(_plain_class_or_function(o) for o in value.options):
        # (a choice of classes, one parameter's: a choice of instances is narrowed per arm, kind_narrowing.py)
        answers = {_one(o, target, torch_made) for o in value.options}
        return answers.pop() if len(answers) == 1 else None
    kinds = _BUILTIN.get(type(value)) or _BUILTIN.get(type(value).__mro__[1])  # (a DefaultStrV is a str)
    if kinds is not None:
        if isinstance(target, BuiltinFn):
            return target.name in kinds
        if isinstance(target, ExtRef) and target.path in _ABCS:
            return isinstance(value, tuple(_ABCS[target.path]))
        if isinstance(target, ExtRef) and target.path in SIZE and isinstance(value, TupleV):
            return bool(value.is_size) or None  # a tuple we built may still be a Size
        if isinstance(target, ClassObj) or isinstance(target, ExtRef) and target.path in TENSOR | MODULE:
            return False
        return None
    if isinstance(value, ModuleV):
        if isinstance(target, ExtRef):
            return True if target.path in MODULE or target.path == value.kind else None
        return False
    if isinstance(value, InstanceObj):
        return _instance(value.cls, target)
    if isinstance(value, ExtRef) and isinstance(target, BuiltinFn) and _layer_class(value.path):
        return False  # `nn.ReLU` given for an activation's name: a class, no str
    if isinstance(value, OpaqueV) and value.kind == "int":
        return _one(IntV(Expr.sym(value.path)), target)
    return None


# what a layer factory checks its argument against (`assert isinstance(norm_layer, (type, str,
# types.FunctionType, functools.partial))`, then unbinding a partial): the kind of callable each is
_CALLABLE_TARGETS = {"type": "class", "types.FunctionType": "function", "types.LambdaType": "function",
                     "functools.partial": "partial"}


def _target_name(target: Value) -> Optional[str]:
    if isinstance(target, BuiltinFn):
        return target.name
    return target.path if isinstance(target, ExtRef) else None


def _callable_kind(value: Value) -> Optional[str]:
    """`class`, `function` or `partial` for a callable the analysis knows the kind of; None for
    anything else (a torch function may be a builtin or a Python function, `torch.relu` or
    `F.relu`). Choices and other values answer through the callers."""
    if isinstance(value, ClassObj) or isinstance(value, ExtRef) and class_or_function(value):
        return "class"
    if isinstance(value, FuncObj):
        return "function"
    return "partial" if isinstance(value, PartialV) else None


def _callable_is(value: Value, kind: str) -> Optional[bool]:
    """`isinstance(value, T)` for T a kind of callable: decided for callables of a known kind
    (each option of a choice alike) and for plain values, which are no callables."""
    if isinstance(value, ChoiceV):
        answers = {_callable_is(o, kind) for o in value.options}
        return answers.pop() if len(answers) == 1 else None
    got = _callable_kind(value)
    if got is not None:
        return got == kind
    if isinstance(value, (NoneV, TensorV, ModuleV, *_BUILTIN)):
        return False
    return None


def _never_a_partials_class(target: Value) -> bool:
    """A class no `functools.partial` object is an instance of: a builtin type, a torch class,
    or a class of the analysed code built only on its own classes and `nn.Module` (one over
    `abc.ABC` or a `Protocol` may claim any callable)."""
    if isinstance(target, ClassObj):
        return not _derives_from_external(target, MODULE)
    return isinstance(target, BuiltinFn) or isinstance(target, ExtRef) and target.path.startswith("torch.")


def class_or_function(value: Value) -> bool:
    """A class or function: never an instance of a builtin type such as `tuple` or `int`. Of
    torch's names only its classes are known to be one (`torch.nn.ReLU`: capitalised), since
    another library's name may be a constant."""
    if isinstance(value, (ClassObj, FuncObj)):
        return True
    return isinstance(value, ExtRef) and value.path.startswith("torch.") and value.path.rsplit(".", 1)[-1][:1].isupper()


def _plain_class_or_function(value: Value) -> bool:
    """A function, or a module class of the analysed code (its metaclass `type`, as `nn.Module`'s:
    no container, where an `Enum` class is iterable)."""
    return isinstance(value, FuncObj) or isinstance(value, ClassObj) and value.is_module()


def _tensor(value: TensorV, target: Value, torch_made: bool) -> Optional[bool]:
    # Only ever True: an unannotated parameter is taken for a tensor without anything saying it
    # is one (generic.param_value), and so is all that is read out of it (`for s in strings`),
    # so `assert isinstance(block_string, str)` must not become "fails for every input".
    if isinstance(target, ExtRef) and target.path in TENSOR and not value.optional:
        return True
    if isinstance(target, ExtRef) and target.path in FOREIGN_ARRAYS and torch_made and not value.maybe_sequence:
        return False  # (None is no array either)
    return None


def inputs_are_tensors(it, fr) -> bool:
    """Whether every tensor the analysis of `fr` holds comes from torch, never from a numpy array
    a caller passed: so in module-level code (where a numpy call gives no tensor) and in the
    analysis of a layer's method, whose inputs are tensors. A plain function's parameter is
    only taken for a tensor (`image * 2` may be an array), and so is one that a parameter's
    tensor was passed to (`maybe_sequence`)."""
    if fr.root == "<module>":
        return True
    f = it.function_named(fr.root) if fr.root else None
    return f is not None and f.cls is not None and f.cls.is_module()


def _instance(cls: ClassObj, target: Value) -> Optional[bool]:
    if isinstance(target, ClassObj):
        return True if _in_mro(cls, target) else (None if _derives_from_external(cls, MODULE) else False)
    if isinstance(target, ExtRef) and target.path in MODULE:
        return True if cls.is_module() else (None if _derives_from_external(cls, MODULE) else False)
    if isinstance(target, (BuiltinFn, ExtRef)) and not _derives_from_external(cls, MODULE):
        return False  # a class of ours, built only on classes of ours (and nn.Module)
    return None


def _in_mro(cls: ClassObj, target: ClassObj, depth: int = 0) -> bool:
    if cls is target:
        return True
    return depth < 64 and any(isinstance(b, ClassObj) and _in_mro(b, target, depth + 1) for b in cls.bases)


def _derives_from_external(cls: ClassObj, allowed: set = frozenset()) -> bool:
    """Whether some ancestor is a class we did not read (other than `allowed` and `object`):
    its own ancestry, and so what it is an instance of, is unknown."""
    return any(p not in allowed for p in cls.foreign_bases())


def _layer_class(path: str) -> bool:
    """Whether `path` names a torch layer class (one with a rule in the registry)."""
    from ..ops import registry
    return isinstance(registry.lookup(path), registry.ModuleRule)
