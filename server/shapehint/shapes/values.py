"""Abstract values: what the analyzer knows about a Python value at a program point.

Tensors carry a `Shape` (and dtype/contiguity when known); Python ints computed from shapes
are `IntV` holding an `Expr`, so `B, T, C = x.size()` and `C // self.n_head` stay symbolic.
Builtin `nn` layers are `ModuleV` (the operator registry's name plus the bound constructor
arguments). Anything the analyzer cannot follow is `UnknownV` — never an exception.
User classes, instances and functions live in `analysis.objects`, since only the
interpreter creates them.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from .expr import Expr
from .shape import Pred, Shape


@dataclass(frozen=True, order=True)
class Span:
    """Source range: line 1-based, col 0-based in code points, end exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    def contains(self, line: int, col: int) -> bool:
        if (line, col) < (self.line, self.col):
            return False
        return (line, col) < (self.end_line, self.end_col) or (line, col) == (self.end_line, self.end_col)


# Creation order of the values that analysed code can write to (lists, dicts, layers, instances):
# `born` tells what a call created from what it found (analysis/callmemo.py).
_BORN = itertools.count()


def born_now() -> int:
    """The serial the next such value will get."""
    return next(_BORN)


class Value:
    """Base of all abstract values."""

    def describe(self) -> str:
        return type(self).__name__


@dataclass(eq=False)
class TensorV(Value):
    shape: Shape
    dtype: Optional[str] = None
    origin: Optional[Span] = None  # the line that produced it
    contiguous: bool = True
    layout_note: str = ""  # why it is not contiguous (for the view error message)
    requires_grad: Optional[bool] = None
    is_param: bool = False
    optional: bool = False  # a parameter defaulting to None: `is None` is undecided
    # a parameter only hinted to be a tensor (`h: torch.Tensor`, or nothing): callers may pass a
    # tuple of tensors, whose items differ in shape (ops/families/indexing.py, `_an_item`)
    maybe_sequence: bool = False
    # an optional tensor a constructor flag chose (`self.q_bias = Parameter(...) if qkv_bias else
    # None`): whether it is None with every flag at its default (analysis/flags.py)
    none_at_default: Optional[bool] = None
    # None on some paths of the function's own code, a tensor on the others (a join,
    # analysis/comprehensions.py): both sides of a `None` test of it are followed and joined, as
    # nothing says which side the model takes (a parameter's absent side is its callers' default)
    joined_none: bool = False

    def describe(self) -> str:
        return f"Tensor{self.shape}"

    def given(self) -> "TensorV":
        """The same tensor on a path where it is known not to be None."""
        return replace(self, optional=False, none_at_default=None, joined_none=False) if self.optional else self


@dataclass(eq=False)
class PackedV(Value):
    """A `PackedSequence`: `batch` sequences of at most `max_len` steps, each step of shape
    `features` (its `.data` is [sum of the lengths, *features])."""
    batch: Expr
    max_len: Expr
    features: tuple
    dtype: Optional[str] = None
    origin: Optional[Span] = None

    def describe(self) -> str:
        feats = ", ".join(str(f) for f in self.features)
        return f"PackedSequence[batch={self.batch}, max_len={self.max_len}, features=[{feats}]]"


@dataclass(eq=False)
class IntV(Value):
    expr: Expr
    origin: Optional[Span] = None

    def describe(self) -> str:
        return f"int = {self.expr}"


@dataclass(eq=False)
class FloatV(Value):
    value: Optional[float] = None
    # the ints (Exprs) it is the true quotient of, when not known: `int(hidden / heads)` is then
    # `hidden // heads` (analysis/builtins.b_int)
    quotient: Optional[tuple] = None


@dataclass(eq=False)
class NumberV(FloatV):
    """An int on some paths and a float on others (`low = math.floor(low)` under a flag the
    analysis cannot decide): arithmetic takes it as a float of unknown value, as it takes
    `max(x, 0)` of an unknown float, but whether it is an int or a float stays undecided
    (analysis/typetests.py)."""


@dataclass(eq=False)
class BoolV(Value):
    pred: Optional[Pred] = None  # None: unknown bool
    # when `pred` is unknown, what the value being true still implies (`x.shape == (B, f(y))`
    # with `f(y)` unknown: `x.shape[0] == B`); asserts and the true arm of an `if` may use it
    implied: Optional[Pred] = None
    # what it is when every constructor flag the class analysed on its own left undecided takes
    # its default (`downsample: bool = True`; analysis/flags.py); None: no flag decides it
    at_default: Optional[bool] = None


@dataclass(eq=False)
class StrV(Value):
    value: Optional[str] = None


@dataclass(eq=False)
class DefaultStrV(StrV):
    """A constructor parameter's string default as the class analysed on its own holds it: one
    value callers may replace (`stem_type=''`, `version="1_0"`). Read as itself (a registry's key,
    a layer's mode) but never a decision: comparing it, or asking what it contains, is unknown,
    so both arms of `if 'deep' in stem_type:` are analysed and joined."""


@dataclass(eq=False)
class NoneV(Value):
    pass


@dataclass(eq=False)
class DefaultNoneV(NoneV):
    """A constructor parameter's `None` default as the class analysed on its own holds it
    (`retriever=None`): callers may pass an object. Read as `None`, but a decision that rests on
    it holds only for instances built without one (Frame.assumes_default), so an assertion it
    makes fail is no error for every input."""


@dataclass(eq=False)
class EllipsisV(Value):
    pass


@dataclass(eq=False)
class DtypeV(Value):
    name: str


@dataclass(eq=False)
class TupleV(Value):
    items: tuple
    is_size: bool = False  # a torch.Size

    def describe(self) -> str:
        if self.is_size:
            return "torch.Size([" + ", ".join(str(i.expr) if isinstance(i, IntV) else "?" for i in self.items) + "])"
        return "tuple"


@dataclass(eq=False)
class StarSizeV(Value):
    """A torch.Size of a tensor whose rank is unknown: `x.shape[:-1]` of `[*batch, C]` is
    `[*batch]`, and `(*x.shape[:-1], -1, 64)` is `[*batch, -1, 64]` — sizes around one variadic
    segment (`shape.star`), which a view of a tensor with the same segment cancels."""
    shape: Shape

    def describe(self) -> str:
        return f"torch.Size({self.shape})"


@dataclass(eq=False)
class ListV(Value):
    items: Optional[list] = None  # None: unknown length
    elem: Optional[Value] = None  # join of the elements when the length is unknown
    length: Optional[Expr] = None  # symbolic length when the items are not individually known
    # a parameter's list of ints (`window_size: List[int]`): `window_size[0]` reads as the opaque
    # value of that name, so a reshape by it is symbolic rather than unknown
    name: Optional[str] = None
    # (n, items): what its items are on the paths where it has exactly n of them (`x.chunk(2)` of
    # an unknown size has one piece or two; `a, b = ...` goes on only where it had two)
    if_length: Optional[tuple] = None
    # (head, block, trips) of a list a loop grew (analysis/grown_lists.py): the items before the
    # loop, then `trips` times the items each pass appends; `appends`: what the loop's second
    # pass appended, while it runs
    grown: Optional[tuple] = None
    appends: Optional[list] = None
    # `grown`'s layout holds where the list is not empty; it may be (the loop that grew it may
    # not have run: an undecided arm, analysis/arm_lists.py)
    or_empty: bool = False
    # the items every path has first, when its length is unknown: a comprehension whose filter
    # surely keeps its first items and is undecided on a later one (`tuple(...)` of it: open_tuples)
    head: tuple = ()
    # (piece, total): each item holds one piece of an axis of size `total`, one item per piece,
    # its own size written `piece` (ops/pieces.py: concatenated again they are whole)
    whole: Optional[tuple] = None
    # at most these items, the i-th known where there is one: a zip with a sequence of unknown
    # length, a list a loop over one grew (analysis/bounded_loops.py)
    upto: tuple = ()
    # the first items, each where there is one, no bound on the length: a comprehension over a
    # range of unknown length (analysis/first_items.py)
    first: tuple = ()

    def __post_init__(self):
        self.born = next(_BORN)


@dataclass(eq=False)
class DictV(Value):
    items: dict = field(default_factory=dict)
    # the generic analysis's `**kwargs`: callers may put any other key in it
    open: bool = False
    # what the keys not known hold, when every value put under one was seen (a dict filled in a
    # loop: `layers[f"layer_{i}"] = Block(d)`); None: an open dict may hold anything there
    elem: Optional[Value] = None
    # the `**kwargs` of one call followed (calls.bind_params): exactly the keys it passed, so a
    # key not among them is absent (`if 'num_experts' in kwargs` decided) — unlike a dict built
    # elsewhere, a module's registry say, which other code may fill
    exact: bool = False
    # a module's dict that code run out of the module's order writes (a function's `REG[name] =
    # fn`): its keys now are not all it will hold, whichever order the analysis runs that code in
    # (analysis/sealed_dicts.py)
    written_elsewhere: bool = False

    def __post_init__(self):
        self.born = next(_BORN)


@dataclass(eq=False)
class SliceV(Value):
    start: Optional[Value] = None
    stop: Optional[Value] = None
    step: Optional[Value] = None


@dataclass(eq=False)
class UnknownV(Value):
    reason: str = ""


@dataclass(eq=False)
class ExtRef(Value):
    """A name from outside the analysed code: a module or function path such as `torch.nn.functional.relu`."""

    path: str


@dataclass(eq=False)
class ModuleV(Value):
    """A builtin `nn` layer: registry name plus bound constructor arguments."""

    kind: str
    cfg: dict
    span: Optional[Span] = None  # where it was constructed
    children: Optional[list] = None  # Sequential / ModuleList / ModuleDict contents
    names: Optional[list] = None  # child names for OrderedDict / ModuleDict
    # children unknown in number but each this one (`ModuleList([Layer(d) for _ in range(depth)])`
    # with `depth` from a config): what a loop over them, or one of them, is
    elem: Optional[Value] = None
    length: Optional[Expr] = None  # how many there are when `elem` stands for them (`depth`)
    # of a container `elem` stands for: its known first children, then some number of `tail`
    # (`Sequential(first, *rest)`; analysis/layer_tails.py); `elem` covers them all
    head: Optional[list] = None
    tail: Optional[Value] = None
    or_empty: bool = False  # that layout, or no child at all (a list that may be empty spread)
    # of a container `elem` stands for: the layers a constructor's first passes appended, those
    # past the first `sure` present only where enough passes ran (analysis/stage_passes.py)
    prefix: Optional[tuple] = None
    sure: int = 0

    def __post_init__(self):
        self.born = next(_BORN)

    def describe(self) -> str:
        if self.children is not None or self.elem is not None:
            return self._describe_container()
        shown = []
        for k, v in self.cfg.items():
            if k.startswith("_") or k in ("device", "dtype"):
                continue
            # a `**kwargs` catch-all (registry.ModuleRule.config) shows as the keywords it bound
            shown += [f"{a}={_short(b)}" for a, b in v.items()] if isinstance(v, dict) else [f"{k}={_short(v)}"]
        return f"{self.kind.split('.')[-1]}({', '.join(shown)})"


    def _describe_container(self) -> str:
        """`ModuleList(12 × Block instance)`, `Sequential(? × Linear(...))` (a number unknown),
        `ModuleDict(a, b)`: what hover shows for a container layer."""
        kind = self.kind.split('.')[-1]
        if self.names is not None:
            return f"{kind}({', '.join(str(n) for n in self.names[:6])}{', …' if len(self.names) > 6 else ''})"
        kids = [self.elem] if self.children is None else self.children
        if not kids:
            return f"{kind}()"
        shown = {k.describe() for k in kids}
        count = "?" if self.children is None else str(len(kids))
        if len(shown) == 1:
            return f"{kind}({count} × {shown.pop()})"
        return f"{kind}({', '.join(k.describe() for k in kids[:4])}{', …' if len(kids) > 4 else ''})"


def _short(v: Any) -> str:
    if isinstance(v, (bool, int, float, str)) or v is None:
        return repr(v)
    if isinstance(v, IntV):
        return str(v.expr)
    if isinstance(v, (StrV,)):
        return repr(v.value)
    if isinstance(v, BoolV):
        return str(v.pred) if v.pred is not None else "?"
    if isinstance(v, NoneV):
        return "None"
    if isinstance(v, FloatV):
        return str(v.value)
    if isinstance(v, TupleV):
        return "(" + ", ".join(_short(i) for i in v.items) + ("," if len(v.items) == 1 else "") + ")"
    return "…"
