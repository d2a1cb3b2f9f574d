"""The referee's verdicts: ShapeHint's `infer` answer against the shapes observed by execution.

Per executed (line, name) whose value was a tensor, one verdict (issue 21):
  right    a shape whose every dim evaluates, under the run's bindings, to the observed size, for
           every observation of that line (through `contexts` where the line runs in several)
  wrong    the rank differs, a variadic segment claims more axes than exist, or an evaluable dim
           differs from an observation
  partial  right where it evaluates, with "?", unbound symbols or a variadic segment left
  missing  no shape
Bindings of one observation (an invocation of the function, recorded by execute.py): the
answer's `symbols` map when it has one (DESIGN §4: `{"param", "axis", "function"}` or
`{"attr": "config.x", "function"}`), else a symbol is looked up, in order, among the call's
arguments (`x.shape[0]`, `x.size(0)`, `config.hidden_size`, an int parameter), the ints the
body assigned to that name (one value in the call: `B, T, C = x.shape`), the constructor
arguments of `self` and `self`'s int attributes. A name bound nowhere is unbound: partial, never
wrong. A float argument or attribute (`config.mlp_ratio`, recorded as `{"float": r}`) is an
operand computed with as Python does (`int(r*dim)` truncates; `//`, `%` and `/` on floats are
Python's); a dim whose value is a float, even an integral one, is unbound, never rounded. The join `shape` is evaluated with the function's own bindings; a `contexts` item whose
call sites (`via`, else its `QUALNAME:LINE` alone) are the observed callers of the call is
evaluated with the bindings of the invocation where those sites start (its first site's
function, whose names the dims use) and its callers; items naming the same sites with different
shapes (one Sequential's blocks) cannot be told apart and are judged by their join. So is a
construction context (`FACTORY:LINE`) of a factory the benchmark's build expression calls
(`resnet18(num_classes=10)` builds through `resnet18` and the module's functions it calls,
`builders`): it is the context a user who builds the model that way reads in hover.
"""
from __future__ import annotations

import ast
import math
import operator
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import annotate  # noqa: E402  (its parse lock: the model threads parse one at a time)
import assumptions  # noqa: E402
import passes  # noqa: E402

VERDICTS = ("right", "partial", "wrong", "missing")


class Unbound(Exception):
    """A name (or attribute, or axis) the run does not bind."""


class TensorProxy:
    def __init__(self, shape):
        self.shape = list(shape)

    def size(self, *dim):
        return self.shape[dim[0]] if dim else list(self.shape)

    def dim(self):
        return len(self.shape)

    @property
    def ndim(self):
        return len(self.shape)


class ObjProxy:
    def __init__(self, attrs):
        self.attrs = attrs

    def get(self, name):
        if name not in self.attrs:
            raise Unbound(name)
        return wrap(self.attrs[name])


def wrap(v):
    if isinstance(v, dict):
        if "shape" in v:
            return TensorProxy(v["shape"])
        if "attrs" in v:
            return ObjProxy(v["attrs"])
        if "int" in v:
            return v["int"]
        if "float" in v:  # (`config.mlp_ratio`: an operand of `int(r*dim)`, never a dim itself)
            return v["float"]
        raise Unbound("?")
    return v


_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod, ast.Pow: operator.pow, ast.Div: operator.truediv}
_FUNCS = {"max": max, "min": min, "abs": abs, "len": len, "int": int, "round": round}  # `int(cfg.ratio*dim)`


def _number(v) -> bool:
    """An int, or a finite float (an operand as Python computes with it; never a dim's final value)."""
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and math.isfinite(v))


def value(expr: str, lookup):
    """The value a printed expression stands for, computed as Python does: `int(r*dim)` truncates
    the float product, `//` and `%` on floats follow Python; `lookup(name)` binds names (raises Unbound)."""
    try:
        tree = annotate.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise Unbound(expr) from None
    try:
        return _ev(tree.body, lookup)
    except (ArithmeticError, ValueError, TypeError):  # (`int(inf)`, a float overflow: nothing to judge)
        raise Unbound(expr) from None


def evaluate(expr: str, lookup) -> int:
    """The int a printed dim stands for. A float result (even 8.0) is no dim: unbound, never rounded."""
    v = value(expr, lookup)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Unbound(expr)
    return v


def _ev(n, lookup):
    if isinstance(n, ast.Constant) and _number(n.value):
        return n.value
    if isinstance(n, ast.Name):
        return lookup(n.id)
    if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
        a, b = _ev(n.left, lookup), _ev(n.right, lookup)
        if not (_number(a) and _number(b)):
            raise Unbound("operand")
        if isinstance(n.op, (ast.FloorDiv, ast.Mod, ast.Div)) and b == 0:
            raise Unbound("division by zero")
        if isinstance(n.op, ast.Pow) and (b < 0 or b > 64 or (a < 0 and isinstance(b, float))):
            raise Unbound("power")
        v = _BIN[type(n.op)](a, b)
        if not _number(v):
            raise Unbound("operand")
        return v
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        v = _ev(n.operand, lookup)
        return -v if isinstance(n.op, ast.USub) else v
    if isinstance(n, ast.Attribute):
        obj = _ev(n.value, lookup)
        if isinstance(obj, ObjProxy):
            return obj.get(n.attr)
        if isinstance(obj, TensorProxy) and n.attr in ("shape", "ndim"):
            return getattr(obj, n.attr)
        raise Unbound(n.attr)
    if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) and n.slice.step is None:
        seq = _ev(n.value, lookup)  # `x.shape[:-1]`: a shape's axes (their product: `.numel()`)
        lo, hi = (None if b is None else _ev(b, lookup) for b in (n.slice.lower, n.slice.upper))
        if isinstance(seq, list) and all(b is None or isinstance(b, int) for b in (lo, hi)):
            return seq[lo:hi]
        raise Unbound("slice")
    if isinstance(n, ast.Subscript):
        seq, idx = _ev(n.value, lookup), _ev(n.slice, lookup)
        if isinstance(seq, list) and isinstance(idx, int) and -len(seq) <= idx < len(seq):
            return seq[idx]
        if isinstance(seq, ObjProxy) and isinstance(idx, int) and not isinstance(idx, bool) and idx >= 0:
            return seq.get("[%d]" % idx)  # a container's part by position (execute._part_ints)
        raise Unbound("subscript")
    if isinstance(n, ast.Call) and not n.keywords:
        args = [_ev(a, lookup) for a in n.args]
        if isinstance(n.func, ast.Name) and n.func.id in _FUNCS and args:
            return _FUNCS[n.func.id](*args) if n.func.id != "len" else len(args[0])
        if isinstance(n.func, ast.Attribute) and n.func.attr == "numel" and not args:
            obj = _ev(n.func.value, lookup)  # torch.Size.numel(), Tensor.numel(): the product of the sizes
            dims = obj.shape if isinstance(obj, TensorProxy) else obj
            if isinstance(dims, list) and all(isinstance(d, int) for d in dims):
                return math.prod(dims)
            raise Unbound("numel")
        if isinstance(n.func, ast.Attribute) and n.func.attr in ("size", "dim"):
            obj = _ev(n.func.value, lookup)
            if isinstance(obj, TensorProxy):
                try:
                    return getattr(obj, n.func.attr)(*args)
                except (IndexError, TypeError):
                    raise Unbound("size") from None
    raise Unbound(ast.dump(n)[:40])


# ---- bindings of one invocation ------------------------------------------------------------

class Run:
    """The recorded invocations of one execution, indexed for binding lookups."""

    def __init__(self, invocations: list, symbols: dict | None = None):
        self.inv = {i["id"]: i for i in invocations}
        self.symbols = symbols or {}
        self._locals = {}

    def local_ints(self, inv) -> dict:
        got = self._locals.get(inv["id"])
        if got is None:
            seen = {}
            for ln in inv["lines"]:
                for o in ln["observed"]:
                    if "int" in o:
                        seen.setdefault(ln["name"], set()).add(o["int"])
            got = self._locals[inv["id"]] = {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}
        return got

    def ancestors(self, inv):
        while inv is not None:
            yield inv
            inv = self.inv.get(inv["parent"]) if inv.get("parent") is not None else None

    def own(self, inv, name):
        env = inv.get("env") or {}
        if name in env:
            return wrap(env[name])
        loc = self.local_ints(inv)
        if name in loc:
            return loc[name]
        ctor = inv.get("ctor") or {}
        if name in ctor:
            return wrap(ctor[name])
        me = env.get("self")
        if isinstance(me, dict) and name in me.get("attrs", {}):
            return wrap(me["attrs"][name])
        raise Unbound(name)

    def by_symbol(self, inv, name):
        sym = self.symbols.get(name)
        if not isinstance(sym, dict):
            raise Unbound(name)
        target = next((a for a in self.ancestors(inv) if a["function"] == sym.get("function")), None)
        if target is None:
            raise Unbound(name)
        if "attr" in sym:
            return value(sym["attr"], lambda n: self.own(target, n))  # (a float ratio too: an operand)
        shape = (target.get("env") or {}).get(sym.get("param"), {})
        if isinstance(shape, dict) and "shape" in shape and isinstance(sym.get("axis"), int):
            dims = shape["shape"]
            if -len(dims) <= sym["axis"] < len(dims):
                return dims[sym["axis"]]
        raise Unbound(name)

    def lookup(self, inv, chain: bool, own_first: bool = False):
        """The name binder for `inv`'s own names, or (chain) for a context's: its callers' first
        (`own_first`: its own, then its callers' — a construction context records only methods
        given the model's very inputs, so their names are the method's own)."""
        scopes = list(self.ancestors(inv))[(0 if own_first else 1):] if chain else [inv]

        def look(name):
            if name in self.symbols:
                return self.by_symbol(inv, name)
            for s in scopes:
                try:
                    return self.own(s, name)
                except Unbound:
                    continue
            raise Unbound(name)
        return look


# ---- one shape against one observation -------------------------------------------------------

def judge(shape, observed: list, look) -> str:
    if shape is None:
        return "missing"
    var = [i for i, d in enumerate(shape) if isinstance(d, str) and d.startswith("*")]
    if len(var) > 1:
        return "partial"  # not a shape the contract prints; nothing to evaluate against
    if var:
        pre, suf = shape[:var[0]], shape[var[0] + 1:]
        if len(pre) + len(suf) > len(observed):
            return "wrong"
        pairs = list(zip(pre, observed)) + list(zip(suf, observed[len(observed) - len(suf):]))
    else:
        if len(shape) != len(observed):
            return "wrong"
        pairs = list(zip(shape, observed))
    unknown = bool(var)
    for d, o in pairs:
        if isinstance(d, bool):
            unknown = True
            continue
        if isinstance(d, int):
            v = d
        elif isinstance(d, str) and d.strip() != "?":
            try:
                v = evaluate(d, look)
            except (Unbound, RecursionError, ValueError, TypeError, OverflowError):
                unknown = True
                continue
        else:
            unknown = True
            continue
        if v != o:
            return "wrong"
    return "partial" if unknown else "right"


_CTX = [re.compile(r"^(?P<q>[\w.<>]+):(?P<l>\d+)(?P<a> assuming \S+ == (?:'[^']*'|\d+)(?: and \S+ == (?:'[^']*'|\d+))*)?"
                   r"(?: via [\w.<>]+:(?:\d+|\?))*$"),
        re.compile(r"from (?P<q>[\w.<>]+) \(line (?P<l>\d+)\)")]
def parse_context(text: str):
    """(QUALNAME, line) of a context label; a construction context that assumes a configuration
    literal keeps its assumption in the name (`Q.__init__ assuming config.a == 'x'`), as
    `builders` names it."""
    for rx in _CTX:
        m = rx.search(text or "")
        if m:
            return m.group("q") + (m.groupdict().get("a") or ""), int(m.group("l"))
    return None


def confirmed(built_by: frozenset, config_strings: dict, build: str = "", source: str = "") -> frozenset:
    """`built_by` less the contexts whose assumption the referee cannot check true of the build
    (assumptions.py): the configuration strings of the built model (execute.py's
    `config_strings`: the build's keyword may be adjusted in construction), the literals the build
    expression `build` passes (`source`: the file, whose class's `__init__` names positions)."""
    return frozenset(n for n in built_by if assumptions.holds(n, config_strings, build, source))


def combine(verdicts: list) -> str:
    if not verdicts:
        return "missing"
    if "wrong" in verdicts:
        return "wrong"
    if all(v == "right" for v in verdicts):
        return "right"
    if all(v == "missing" for v in verdicts):
        return "missing"
    return "partial"


def builders(build: str, source: str, path: str = "") -> frozenset:
    """The module-level functions of `source` that the build expression runs, transitively: the
    device run's own reading (server/shapehint/devicerun/builders.py, loaded by path, as
    execute.py loads the runner: one definition of which factories built the model; `path` finds
    the base a class forwards its arguments to)."""
    with annotate.PARSE_LOCK:
        return _BUILDERS.built_by([build], source, path)


_BUILDERS = annotate.server_file("_shapehint_devicerun_builders", "devicerun", "builders.py")


def score(invocations: list, answer: dict | None, line_map=None, stmt_of=None, built_by=frozenset(),
          pass_lines=frozenset()) -> dict:
    """{"LINE:NAME": {"verdict", "function", "observations", "example": {observed, shape}}}.

    `line_map(answer_line) -> original line | None` undoes an annotated copy's inserted lines;
    `stmt_of(line) -> statement line` lets a context's call line meet the tracer's caller line;
    `pass_lines`: the lines judged pass by pass too (passes.py)."""
    line_map = line_map or (lambda n: n)
    stmt_of = stmt_of or (lambda n: n)
    values = {}
    for v in (answer or {}).get("values", []) or []:
        ln = line_map(v.get("line"))
        if ln is not None:
            values.setdefault((ln, v.get("name")), []).append(v)
    run = Run(invocations, (answer or {}).get("symbols"))
    out = {}
    for inv in invocations:
        for rec in inv["lines"]:
            shapes = [o["shape"] for o in rec["observed"] if "shape" in o]
            if not shapes:
                continue
            cands = values.get((rec["line"], rec["name"]), [])
            if len(cands) > 1:
                cands = [c for c in cands if c.get("col") == rec["col"]] or cands[:1]
            val = cands[0] if cands else None
            by_pass = None
            if val is not None and rec["line"] in pass_lines:
                seqs = (inv.get("passes") or {}).get("%d:%d:%s" % (rec["line"], rec["col"], rec["name"]))
                by_pass = passes.judge_passes(val, seqs, run.lookup(inv, chain=False), judge, join_dims, combine)
            verdicts = []
            for obs in shapes:
                verdicts.append(_observation(val, obs, inv, run, line_map, stmt_of, built_by, by_pass))
            key = "%d:%s" % (rec["line"], rec["name"])
            item = out.setdefault(key, {"function": inv["function"], "verdicts": [], "observations": 0,
                                        "example": None})
            item["verdicts"].extend(verdicts)
            item["observations"] += len(shapes)
            if item["example"] is None or (verdicts and "wrong" in verdicts and "wrong" not in item["verdicts"][:-len(verdicts)]):
                item["example"] = {"observed": shapes[0], "shape": val.get("shape") if val else None,
                                   "context": inv["context"]}
    for item in out.values():
        item["verdict"] = combine(item.pop("verdicts"))
    return out


def _observation(val, obs, inv, run, line_map, stmt_of, built_by=frozenset(), by_pass=None) -> str:
    """The join must hold for this call, and so must each context that says it is this call: one
    whose call sites (`via`, outermost first; a context without one is its label alone) are the
    callers of this invocation, up to the function whose names the shape is in (`via`'s first
    site's), where its names are bound. Contexts that name the same sites with different shapes
    (the blocks of one Sequential, called from one line) cannot be told apart: their join counts.
    A construction context (`FACTORY:LINE`) of a factory the benchmark's build calls counts too
    (the best of them: the model was built in one of them). `by_pass`: the verdict of the
    line's `iteration k` contexts on this call's passes (passes.py), a claim as the others are."""
    if val is None:
        return "missing"
    join = judge(val.get("shape"), obs, run.lookup(inv, chain=False))
    chain = _callers(inv, run, stmt_of)
    built, by_sites = [], {}
    for ctx in val.get("contexts") or []:
        where = parse_context(ctx.get("context", ""))
        if where is None:
            continue
        if where[0] in built_by:
            if not _through_site(ctx.get("context", ""), chain, line_map, stmt_of):
                continue
            built.append(judge(ctx.get("shape"), obs, run.lookup(inv, chain=True, own_first=True)))
            continue
        sites = _sites(ctx.get("via") or [ctx.get("context", "")], line_map, stmt_of)
        if sites is not None and tuple(chain[:len(sites)]) == sites[::-1]:
            by_sites.setdefault(sites, []).append(ctx.get("shape"))
    claims = [join]
    for sites, shapes in by_sites.items():
        root = _ancestor(inv, run, len(sites))
        if root is None or root["function"] != sites[0][0]:
            continue
        shape = shapes[0] if all(s == shapes[0] for s in shapes) else join_dims(shapes)
        claims.append(judge(shape, obs, run.lookup(root, chain=True, own_first=True)))
    claims.append(next((v for v in ("right", "partial", "wrong") if v in built), "missing"))
    if by_pass is not None:
        claims.append(by_pass)
    if "wrong" in claims:
        return "wrong"
    for v in ("right", "partial"):
        if v in claims:
            return v
    return "missing"


_DEEP_SITE = re.compile(r" via (?P<q>[\w.<>]+):(?P<l>\d+|\?)(?= via |$)")


def _through_site(text: str, chain: list, line_map, stmt_of) -> bool:
    """A deep construction label (`… via Q:N via R:M`, frames.deep_context: the call sites of one
    path, outermost first) holds for the calls made through that path only: the others of its
    construction at the line are under other labels (or lost), so it claims nothing of an
    invocation whose callers (innermost first) do not pass its sites, in order."""
    sites = []
    for m in _DEEP_SITE.finditer(text or ""):
        line = line_map(int(m.group("l"))) if m.group("l") != "?" else None
        if line is None:
            return False
        sites.append((m.group("q"), stmt_of(line)))
    rest = iter(chain)
    return all(site in rest for site in reversed(sites))


def _callers(inv, run, stmt_of) -> list:
    """(QUALNAME, statement line) of the call that made `inv`, then of the one that made its
    caller, and so on: the observed call sites, innermost first."""
    out = []
    for a in run.ancestors(inv):
        where = parse_context(a.get("context", ""))
        if where is None:
            break
        out.append((where[0], stmt_of(where[1])))
    return out


def _sites(via: list, line_map, stmt_of):
    out = []
    for text in via:
        where = parse_context(text)
        line = line_map(where[1]) if where is not None else None
        if line is None:
            return None
        out.append((where[0], stmt_of(line)))
    return tuple(out) or None


def _ancestor(inv, run, up: int):
    for i, a in enumerate(run.ancestors(inv)):
        if i == up:
            return a
    return None


def join_dims(shapes: list):
    """Equal dims kept, others unknown; None when a shape is unknown or the ranks differ with no
    variadic segment. Shapes with variadic segments that differ join to what they all write at the
    front and at the back around one `*?` (`[*?]` and `[*?, h]`: `[*?]`), never more."""
    if any(not isinstance(s, list) for s in shapes):
        return None
    star = [any(_variadic(d) for d in s) for s in shapes]
    if len({len(s) for s in shapes}) == 1 and not any(
            any(_variadic(d) for d in col) and not all(d == col[0] for d in col) for col in zip(*shapes)):
        return [col[0] if all(d == col[0] for d in col) else "?" for col in zip(*shapes)]
    if not any(star):
        return None
    def fixed_run(s):  # the dims written before the first variadic segment (all, if none)
        return next((i for i, d in enumerate(s) if _variadic(d)), len(s))
    front = min(fixed_run(s) for s in shapes)
    pre = []
    for col in zip(*(s[:front] for s in shapes)):
        if not all(d == col[0] for d in col):
            break
        pre.append(col[0])
    back = min(fixed_run(s[::-1]) for s in shapes)
    back = min(back, min(len(s) for s in shapes) - len(pre))  # a shape's axes are claimed once
    suf = []
    for col in zip(*(s[::-1][:back] for s in shapes)):
        if not all(d == col[0] for d in col):
            break
        suf.append(col[0])
    return pre + ["*?"] + suf[::-1]


def _variadic(d) -> bool:
    return isinstance(d, str) and d.startswith("*")


def counts(lines: dict) -> dict:
    c = {v: 0 for v in VERDICTS}
    for item in lines.values():
        c[item["verdict"]] += 1
    c["lines"] = sum(c[v] for v in VERDICTS)
    return c
