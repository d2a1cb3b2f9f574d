"""What users declare, checked: annotated variables, return annotations, and the number of
values an unpacking takes (a component of the interpreter, `Interp.contracts`).

Only shape annotations are contracts (jaxtyping, `TensorType`, and a `tuple[...]` of them);
`torch.Tensor`, `Optional[...]` and other ordinary typing annotations are hints and never give a
diagnostic. Same semantics as every other diagnostic: SH110 only when no admissible input makes
the value agree with its declaration; when some does, the agreement becomes a fact for the rest
of the path (as an `assert` would). An annotation is not executed, so a mismatch does not end
the path: a second annotated variable further down is still checked (`Reporter.declared`).
An unpacking into the wrong number of names raises, so SH111 ends the path like an operation's
error does.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.pyast import parse as parse_ast
from ..shapes.shape import Shape, eq, is_dyn
from ..shapes.values import ExtRef, ListV, ModuleV, TensorV, TupleV, Value
from .frames import span_of
from .objects import BoundOp, ShapeAliasV, TensorMethod
from .result import Related

_TUPLE_NAMES = ("tuple", "Tuple")


class Declared:
    """A return annotation read once per call: one `(shape, dtype)`, or a tuple of them (None
    where an item declares no shape), names bound as the call bound its parameters'."""
    __slots__ = ("one", "items", "node")

    def __init__(self, one, items, node):
        self.one, self.items, self.node = one, items, node


class Contracts:
    # `zero_defaults`: ids of the 0s that are parameter defaults (Interp.zero_defaults)
    # `hinted`: ids of the tuples a parameter's typing hint alone shapes (Interp.hinted)
    _USES = ("annotation_shape", "resolve", "raised", "declared", "source", "fresh_symbol", "zero_defaults",
             "hinted", "_safe_eval")

    # ---- reading ----------------------------------------------------------------------------
    def declared_return(self, f, fr, globals_, binding: Optional[dict], span) -> Optional[Declared]:
        """`f`'s return annotation as a contract, or None when it declares no shape. `binding`
        maps the parameters' annotation names to the call's dims (None: the function's own
        analysis, where the names are its symbols); other names are fresh per call."""
        node = f.node.returns
        if node is None or not _may_declare(node, globals_):
            return None
        items = _tuple_items(node)
        if items is None:
            one = self._shape_of(node, fr, globals_, binding, span)
            return Declared(one, None, node) if one is not None else None
        got = [self._shape_of(i, fr, globals_, binding, span) for i in items]
        return Declared(None, got, node) if any(g is not None for g in got) else None

    def _shape_of(self, node, fr, globals_, binding, span):
        ann = self.annotation_shape(node, fr, globals_)
        if ann is None or ann[0].rank is None and not ann[0].dims and not ann[0].suffix:
            return None  # not a shape annotation (`torch.Tensor` declares only a tensor)
        shape = ann[0]
        if binding is not None:
            free = {n for n in shape.symbols() if not n.startswith("?") and n not in binding}
            shape = shape.subs({**binding, **{n: self.fresh_symbol(n, span) for n in free}})
        return shape, ann[1]

    # ---- checking -----------------------------------------------------------------------------
    def check_declared(self, v: Value, ann: Shape, dtype, node, fr, what: str) -> Value:
        """`v` against a declared tensor shape: SH110 when no admissible input makes them agree;
        else the agreement is a fact and the value has the declared form (its names)."""
        if not isinstance(v, TensorV) or fr.assumes_default:
            return v  # (a path that took an optional argument omitted: callers that pass it differ)
        actual = self.resolve(v)
        if ann.rank is None or actual.rank is None:
            return v
        span = span_of(node)
        if ann.rank != actual.rank:
            self.declared(fr, span, "SH110", f"{what} says rank {ann.rank} {ann}, but the value is {actual} "
                          f"(rank {actual.rank})", [])
            return v
        for a, b in zip(ann.dims, actual.dims):
            p = eq(a, b)
            ok, core = fr.facts.possible(p)
            if ok is False:
                self.declared(fr, span, "SH110", f"{what} says {ann}, but the value is {actual}",
                              [Related(o[0].line, o[0].col, o[1]) for o in core if o and o[0].line != span.line])
                return v
        for a, b in zip(ann.dims, actual.dims):
            fr.facts.add(eq(a, b), (span, f"{what} on line {span.line}"))
        # the declared names, except where it declares nothing (`_`): there the value's own dim
        dims = tuple(b if is_dyn(a) else a for a, b in zip(ann.dims, actual.dims))
        return TensorV(Shape(dims), dtype or v.dtype, v.origin, v.contiguous, v.layout_note)

    def check_return(self, v: Value, decl: Declared, node, fr) -> Value:
        """One `return` against the function's declared result (every path's is checked)."""
        what = "the return annotation"
        if decl.one is not None:
            return self.check_declared(v, decl.one[0], decl.one[1], node, fr, what)
        if not isinstance(v, TupleV):
            return v
        if len(v.items) != len(decl.items) and not fr.assumes_default:
            self.declared(fr, span_of(node), "SH110", f"{what} declares {len(decl.items)} values, but this returns "
                          f"{len(v.items)}: {describe(v)}", [])
            return v
        out = [self.check_declared(item, d[0], d[1], node, fr, f"{what} (item {i})") if d is not None else item
               for i, (item, d) in enumerate(zip(v.items, decl.items))]
        return TupleV(tuple(out), v.is_size)

    def check_unpack(self, target, items: Optional[list], v: Value, value_node, fr) -> bool:
        """`a, b, c = value` where the value's structure is known: whether the count fits
        (SH111 when it does not; Python raises ValueError there)."""
        if items is None or not isinstance(v, (TupleV, ListV, ModuleV)) or id(v) in self.hinted \
                or fr.assumes_default:
            # (`x: Tuple[Tensor]` is a hint: people write it for tuples of any length; a path that
            # took an optional argument omitted may return fewer values than calls passing it)
            return True
        names = target.elts
        starred = any(isinstance(e, ast.Starred) for e in names)
        want = len(names) - starred
        if len(items) == want or starred and len(items) > want or not self._intrinsic(value_node, fr):
            return True
        src = f"`{self.source(value_node)}` " if value_node is not None else ""
        many = "at least " if starred else ""
        was_dead = fr.dead
        self.raised(fr, span_of(target), "SH111",
                    f"{src}gives {len(items)} value{'s' if len(items) != 1 else ''} {describe(v)}, "
                    f"but {many}{want} names take them", [])
        if not was_dead and fr.dead:
            fr.died_of = "rank" if isinstance(v, TupleV) and v.is_size else ""
        return False

    def _intrinsic(self, node, fr) -> bool:
        """Whether the unpacked value's length is its own, whatever the configuration: a literal,
        a shape (`x.shape`, `x.size()`), or what a torch layer or function returns (`self.lstm(x)`,
        `x.chunk(3)`). A user function's result is not: the analysis may have taken its `if`s
        with defaults (`if self.output_attentions: return y, attn`), which are not facts."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return True
        if isinstance(node, ast.Attribute):
            return node.attr == "shape"
        if not isinstance(node, ast.Call):
            return False
        if isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args:
            return True
        f = self._safe_eval(node.func, fr)
        return isinstance(f, (ExtRef, TensorMethod, BoundOp)) or isinstance(f, ModuleV) and f.children is None \
            and f.elem is None

    def check_divisor(self, divisor: Value, node, fr) -> None:
        """`H // window_size` with `window_size` 0 on this path: ZeroDivisionError (SH112). A 0
        that is a parameter's default is only one possible value (DESIGN: defaults are not
        facts), so it alone is no error: callers may pass others."""
        if id(divisor) in self.zero_defaults:
            return
        right = node.value if isinstance(node, ast.AugAssign) else node.right
        self.raised(fr, span_of(node), "SH112",
                    f"`{self.source(node)}` divides by zero: `{self.source(right)}` is 0 here", [])


def _may_declare(node, globals_: dict) -> bool:
    """Whether an annotation can spell a shape: a dims string or list (`Float[Tensor, "B 64"]`,
    `TensorType([1, 2])`) or the name of an alias. `torch.Tensor`, `nn.Sequential`,
    `Optional[...]` of names: no (asked on every call of every annotated function, so it must
    cost no evaluation)."""
    if isinstance(node, ast.Name):
        return isinstance(globals_.get(node.id), ShapeAliasV)
    if isinstance(node, ast.Attribute):
        return False
    # the walk, kept on the node (parsed trees are never changed): every call of an annotated
    # function asks again (21,500 nodes walked, 1.6 % of the profile, on five transformers
    # modeling files: bench/profile_check.py's list)
    got = getattr(node, "_shapehint_spells_dims", None)
    if got is None:
        got = node._shapehint_spells_dims = any(isinstance(n, ast.Constant) and isinstance(n.value, (str, int))
                                                for n in ast.walk(node))
    return got


def _tuple_items(node) -> Optional[list]:
    """The items of `tuple[A, B]` / `Tuple[A, B]` (not `tuple[A, ...]`), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = parse_ast(node.value, mode="eval").body
        except SyntaxError:
            return None
    if not isinstance(node, ast.Subscript):
        return None
    base = node.value
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    if name not in _TUPLE_NAMES:
        return None
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(i, ast.Constant) and i.value is Ellipsis for i in items):
        return None
    return list(items)


def describe(v: Value, depth: int = 0) -> str:
    """A value's structure for messages: `([B, T, 16], ([1, B, 16], [1, B, 16]))`."""
    if isinstance(v, TensorV):
        return str(v.shape)
    if depth > 3:
        return "..."
    if isinstance(v, TupleV) and v.is_size:
        return v.describe()
    if isinstance(v, (TupleV, ListV)) and v.items is not None:
        inner = ", ".join(describe(i, depth + 1) for i in v.items)
        return f"({inner}{',' if len(v.items) == 1 else ''})" if isinstance(v, TupleV) else f"[{inner}]"
    if isinstance(v, ModuleV) and v.children is not None:
        return f"({len(v.children)} layers)"
    d = v.describe()
    return d.split(" = ", 1)[-1] if d.startswith("int = ") else d
