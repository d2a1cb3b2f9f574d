"""Reading what one function's source says about its tensor parameters, with `ast` only:
annotations (jaxtyping, `TensorType`), `assert`/`torch._check` on shapes, `B, C, H, W = x.shape`
unpacking, and uses that fix a dtype or value range (ids into an Embedding, a loss target, a
mask). inputs.py turns what is read into the inputs of a device run."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..frontend.pyast import parse as parse_ast
from ..frontend.names import dotted

JAX_DTYPES = {"Float": "float32", "Float32": "float32", "Float64": "float64", "Float16": "float16",
              "BFloat16": "bfloat16", "Inexact": "float32", "Shaped": None, "Num": None, "Real": None,
              "Int": "int64", "Int64": "int64", "Int32": "int32", "Integer": "int64", "Long": "int64",
              "UInt8": "uint8", "Bool": "bool"}


@dataclass
class Param:
    name: str
    dims: Optional[list] = None  # int | symbol str per axis; None = rank unknown
    dtype: Optional[str] = None
    role: Optional[str] = None  # ids | target | mask
    high_from: Optional[list] = None
    embedding: Optional[str] = None  # attribute path of the Embedding that consumes these ids
    value: Optional[object] = None  # for int parameters: the symbol's name
    is_int: bool = False
    has_default: bool = False
    override: Optional[dict] = None  # from --input


class ShapeReader:
    """Reads one function's parameters: annotations, assertions, unpacking, uses."""

    def __init__(self, fn, layer_attrs: dict, consts: dict):
        self.fn, self.layers, self.consts = fn, layer_attrs, consts
        a = fn.args
        pos = a.posonlyargs + a.args
        defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        items = list(zip(pos, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
        if items and items[0][0].arg in ("self", "cls"):
            items = items[1:]
        self.params = {}
        for arg, default in items:
            p = Param(arg.arg, has_default=default is not None)
            self._annotation(p, arg.annotation)
            self.params[p.name] = p
        self.constraints = []
        self._body()

    def _annotation(self, p, ann):
        if ann is None:
            return
        if isinstance(ann, ast.Name) and ann.id == "int":
            p.is_int = True
            return
        if isinstance(ann, ast.Subscript) and dotted(ann.value).split(".")[-1] in JAX_DTYPES:
            p.dtype = JAX_DTYPES[dotted(ann.value).split(".")[-1]]
            sl = ann.slice
            if isinstance(sl, ast.Tuple) and len(sl.elts) == 2 and isinstance(sl.elts[1], ast.Constant):
                p.dims = self._jax_dims(p.name, str(sl.elts[1].value))
        elif isinstance(ann, ast.Call) and dotted(ann.func).endswith("TensorType") and ann.args:
            arg = ann.args[0]
            if isinstance(arg, (ast.Tuple, ast.List)):
                p.dims = [e.value if isinstance(e, ast.Constant) and type(e.value) is int else f"{p.name}_{i}"
                          for i, e in enumerate(arg.elts)]

    def _jax_dims(self, pname, text):
        dims = []
        for i, tok in enumerate(text.split()):
            tok = tok.lstrip("#")
            if tok in ("...",) or tok.startswith("*"):
                continue  # a variadic segment: zero axes is an admissible choice
            if tok.isdigit():
                dims.append(int(tok))
            elif tok == "_" or not tok:
                dims.append(f"{pname}_{i}")
            elif tok.isidentifier():
                dims.append(tok)
            else:  # an expression such as "h-1": a fresh axis tied to it
                fresh = f"{pname}_{i}"
                self.constraints.append(f"{fresh} == ({tok})")
                dims.append(fresh)
        return dims

    # -- the function body: asserts, torch._check, unpacking, and uses for dtype/range
    def _body(self):
        checks = []
        for st in self.fn.body:
            if isinstance(st, ast.Assert):
                checks.append(st.test)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                    dotted(st.value.func).endswith("_check") and st.value.args:
                checks.append(st.value.args[0])
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Tuple):
                src = self._shape_of(st.value)
                p = self.params.get(src) if src else None
                if p is not None and p.dims is None:
                    p.dims = [e.id if isinstance(e, ast.Name) and e.id != "_" else f"{p.name}_{i}"
                              for i, e in enumerate(st.targets[0].elts)]
        for test in checks:  # ranks and whole shapes first, so that indexed axes resolve
            self._rank_facts(test)
        for test in checks:
            expr = self._translate(test)
            if expr is not None:
                self.constraints.append(expr)
        for node in ast.walk(self.fn):
            self._use(node)

    def _shape_of(self, node):
        """`x.shape` / `x.size()` -> "x"."""
        if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name):
            return node.value.id
        if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "size" and isinstance(node.func.value, ast.Name):
            return node.func.value.id
        return None

    def _rank_facts(self, test):
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            for v in test.values:
                self._rank_facts(v)
            return
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return
        left, right = test.left, test.comparators[0]
        for a, b in ((left, right), (right, left)):
            src = self._shape_of(a)
            if src in self.params and isinstance(b, (ast.Tuple, ast.List, ast.Call)):
                elts = b.elts if not isinstance(b, ast.Call) else (b.args[0].elts if b.args and isinstance(
                    b.args[0], (ast.Tuple, ast.List)) else None)
                if elts is not None and self.params[src].dims is None:
                    p = self.params[src]
                    p.dims = [e.value if isinstance(e, ast.Constant) and type(e.value) is int else
                              e.id if isinstance(e, ast.Name) and e.id not in self.consts else f"{src}_{i}"
                              for i, e in enumerate(elts)]
            rank = self._rank_of(a)
            if rank in self.params and isinstance(b, ast.Constant) and type(b.value) is int and \
                    self.params[rank].dims is None:
                self.params[rank].dims = [f"{rank}_{i}" for i in range(b.value)]

    def _rank_of(self, node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension") \
                and isinstance(node.func.value, ast.Name):
            return node.func.value.id
        if isinstance(node, ast.Attribute) and node.attr == "ndim" and isinstance(node.value, ast.Name):
            return node.value.id
        if isinstance(node, ast.Call) and dotted(node.func) == "len" and node.args:
            return self._shape_of(node.args[0])
        return None

    def _axis(self, node):
        """`x.shape[i]` / `x.size(i)` -> the axis' dim (int or symbol), else None."""
        name, idx = None, None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Constant, ast.UnaryOp)):
            name = self._shape_of(node.value)
            idx = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
                and isinstance(node.func.value, ast.Name) and len(node.args) == 1:
            name, idx = node.func.value.id, node.args[0]
        p = self.params.get(name) if name else None
        if p is None or p.dims is None:
            return None
        try:
            i = ast.literal_eval(idx)
            return p.dims[i]
        except (ValueError, IndexError, TypeError):
            return None

    def _translate(self, node):
        """An assertion as a Python expression over symbols, or None when it mentions anything else."""
        class T(ast.NodeTransformer):
            ok = True

            def visit(inner, n):
                d = self._axis(n)
                if d is not None:
                    return ast.Name(str(d)) if isinstance(d, str) else ast.Constant(d)
                if self._rank_of(n) in self.params:
                    p = self.params[self._rank_of(n)]
                    return ast.Constant(len(p.dims)) if p.dims is not None else inner._bad(n)
                if isinstance(n, ast.Name):
                    if n.id in self.consts:
                        return ast.Constant(self.consts[n.id])
                    if n.id in self.params and not self.params[n.id].is_int:
                        return inner._bad(n)
                    return n
                if isinstance(n, (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Constant,
                                  ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.And, ast.Or,
                                  ast.Not, ast.USub, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod,
                                  ast.Load)):
                    return inner.generic_visit(n)
                return inner._bad(n)

            def _bad(inner, n):
                inner.ok = False
                return n
        t = T()
        out = t.visit(parse_ast(ast.unparse(node), mode="eval").body)
        return ast.unparse(out) if t.ok else None

    def _use(self, node):
        P = self.params
        if isinstance(node, ast.Call):
            fname = dotted(node.func)
            last = fname.split(".")[-1]
            args = [_root(a) for a in node.args]
            kind = self.layers.get(fname[5:]) if fname.startswith("self.") else None
            if (kind == "Embedding" or last == "embedding") and args and args[0] in P:
                P[args[0]].role, P[args[0]].dtype = "ids", P[args[0]].dtype or "int64"
                if kind == "Embedding":
                    P[args[0]].embedding = fname[5:]
                if last == "embedding" and len(args) > 1 and args[1] in P:
                    P[args[0]].high_from = [args[1], 0]
            if (kind in ("CrossEntropyLoss", "NLLLoss") or last in ("cross_entropy", "nll_loss")) \
                    and len(args) > 1 and args[1] in P and P[args[1]].dtype in (None, "int64"):
                P[args[1]].role, P[args[1]].dtype = "target", "int64"
                if args[0] in P:
                    P[args[1]].high_from = [args[0], 1]
            if last == "one_hot" and args and args[0] in P:
                P[args[0]].role, P[args[0]].dtype = "ids", "int64"
            if last in ("masked_fill", "masked_fill_", "where", "masked_select") and args and args[0] in P:
                P[args[0]].role, P[args[0]].dtype = "mask", "bool"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert) and \
                isinstance(node.operand, ast.Name) and node.operand.id in P:
            P[node.operand.id].role, P[node.operand.id].dtype = "mask", "bool"


def _root(node):
    """The parameter an argument is derived from by methods, indexing or attributes:
    `chars.view(B * T, L)` and `x[:, 0]` -> "chars", "x"."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return None
