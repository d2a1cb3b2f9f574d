"""Inline expectations of the case programs: parsing and evaluation (shared by the data-driven
test `tests/test_cases.py` and the ground-truth tool `tests/cases/_verify.py`; no torch here).

Syntax, in the trailing comment of a line (segments separated by `#`):
  `# expect: [B, 10]`                      shape of the (single) tensor-valued name target
  `# expect: h=[B, 64]; c=[B, 64]`         one shape per named target (tuple unpacking)
  `# E[SH101]`, `# W[SH201]`               a diagnostic with that code is reported on this line
  `# bug: ... (SH101)`                     (shared/examples only) a documented error on this line
File-level lines (for the verifier): `# entry: Net(); inputs: x=[B,3,H,W]` and
`# verify: B=2,H=32,W=32; B=3,H=64,W=48`.

Dimensions are Python expressions over symbol names; `x.shape[0]` names axis 0 of parameter `x`.
They are compared by evaluating both sides under bindings of the symbols, never as strings.
Convention: once an earlier operation pins a named dimension to a constant (a Linear's in_features,
a conv's in_channels), later expectations print the constant.
"""
from __future__ import annotations

import ast
import io
import random
import re
import tokenize
from dataclasses import dataclass, field

MARKER_RE = re.compile(r"^([EW])\[(SH\d{3})\]$")
BUG_RE = re.compile(r"^bug:")
CODE_RE = re.compile(r"SH\d{3}")
SHAPE_NAME_RE = re.compile(r"\b([A-Za-z_]\w*)\.shape\[(\d+)\]")
DOTTED_RE = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


@dataclass
class Expectation:
    line: int
    spec: str                      # the raw text after `expect:`
    shapes: dict                   # target name (or "" for the single target) -> list[str] dims


@dataclass
class Marker:
    line: int
    kind: str                      # "E" | "W" | "bug"
    code: str | None               # None for a `bug:` comment without a code


@dataclass
class CaseFile:
    path: str
    text: str
    expectations: dict = field(default_factory=dict)   # line -> Expectation
    markers: list = field(default_factory=list)
    targets: dict = field(default_factory=dict)        # stmt line -> [names]
    stmt_span: dict = field(default_factory=dict)      # any line of a target stmt -> stmt line
    entries: list = field(default_factory=list)        # [(callable expr, {name: (dims, dtype)})]
    bindings: list = field(default_factory=list)       # [{symbol: int}]
    errors: list = field(default_factory=list)         # syntax problems of the expectations


def split_dims(text: str) -> list:
    """`[B, (H - 1)//2 + 1, x.shape[0]]` -> ["B", "(H - 1) // 2 + 1", "x.shape[0]"]."""
    text = re.sub(r"(?<![\w'\"])\?", "'?'", text.strip())  # `?` (unknown) is not Python
    node = ast.parse(text, mode="eval").body
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise ValueError(f"not a shape: {text!r}")
    out = []
    for elt in node.elts:
        if isinstance(elt, ast.Starred):
            out.append("*" + ast.unparse(elt.value))
        elif isinstance(elt, ast.Constant) and elt.value == "?":
            out.append("?")
        else:
            out.append(ast.unparse(elt))
    return out


def parse_spec(spec: str) -> dict:
    spec = spec.strip()
    if spec.startswith("["):
        return {"": split_dims(spec)}
    shapes = {}
    for part in spec.split(";"):
        name, _, shape = part.partition("=")
        shapes[name.strip()] = split_dims(shape)
    return shapes


def _targets(node) -> list:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for e in node.elts for n in _targets(e)]
    return []  # attributes, subscripts, starred (lists) are not name targets of tensors


def _target_statements(tree) -> dict:
    out = {}
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Assign):
            for t in node.targets:
                names += _targets(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and getattr(node, "value", 1) is not None:
            names = _targets(node.target)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            names = _targets(node.target)
        if names:
            out[node] = names
    return out


def _parse_inputs(text: str) -> dict:
    inputs = {}
    for m in re.finditer(r"(\w+)=(\[[^\]]*\])(?::(\w+))?", text):
        inputs[m.group(1)] = (split_dims(m.group(2)), m.group(3) or "float")
    return inputs


def parse_case(path: str, text: str | None = None) -> CaseFile:
    if text is None:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    case = CaseFile(path, text)
    tree = ast.parse(text, path)
    for node, names in _target_statements(tree).items():
        case.targets[node.lineno] = names
        last = node.lineno if isinstance(node, (ast.For, ast.AsyncFor)) else node.end_lineno
        for ln in range(node.lineno, last + 1):
            case.stmt_span[ln] = node.lineno
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        line = tok.start[0]
        for seg in tok.string.split("#")[1:]:
            seg = seg.strip()
            try:
                if seg.startswith("expect:"):
                    case.expectations[line] = Expectation(line, seg[7:].strip(), parse_spec(seg[7:]))
                elif MARKER_RE.match(seg):
                    kind, code = MARKER_RE.match(seg).groups()
                    case.markers.append(Marker(line, kind, code))
                elif BUG_RE.match(seg):
                    m = CODE_RE.search(seg)
                    case.markers.append(Marker(line, "bug", m.group(0) if m else None))
                elif seg.startswith("entry:"):
                    body = seg[6:]
                    call, _, inputs = body.partition("; inputs:")
                    case.entries.append((call.strip(), _parse_inputs(inputs)))
                elif seg.startswith("verify:"):
                    for part in seg[7:].split(";"):
                        part = part.strip()
                        if part:
                            case.bindings.append({k.strip(): int(v) for k, v in
                                                  (kv.split("=") for kv in part.split(","))})
            except (SyntaxError, ValueError) as exc:
                case.errors.append(f"line {line}: cannot parse {seg!r}: {exc}")
    for line, exp in case.expectations.items():
        names = case.targets.get(line)
        if names is None:
            case.errors.append(f"line {line}: `# expect:` on a line that assigns no name")
        elif "" in exp.shapes:
            real = [n for n in names if n != "_"]
            if len(real) != 1:
                case.errors.append(f"line {line}: several targets {names}; write name=[...] pairs")
            else:
                exp.shapes = {real[0]: exp.shapes[""]}
        else:
            for n in exp.shapes:
                if n not in names:
                    case.errors.append(f"line {line}: {n!r} is not a target of this line {names}")
    return case


# ---- evaluation -------------------------------------------------------------------------------

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


def normalise(expr: str) -> str:
    """`x.shape[1]` -> `x__shape_1`, `cfg.n_embd` -> `cfg__n_embd`: every symbol a plain name."""
    expr = SHAPE_NAME_RE.sub(lambda m: f"{m.group(1)}__shape_{m.group(2)}", expr)
    return DOTTED_RE.sub(lambda m: m.group(0).replace(".", "__"), expr)


def symbols(expr: str) -> set:
    tree = ast.parse(normalise(expr), mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in ("max", "min")}


def evaluate(expr: str, env: dict) -> int:
    """Safe evaluation of + - * // % (and max/min) over ints and bound names."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise NameError(node.id)
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min"):
            return (max if node.func.id == "max" else min)(*[ev(a) for a in node.args])
        raise ValueError(f"unsupported expression: {ast.unparse(node)}")
    return ev(ast.parse(normalise(str(expr)), mode="eval"))


def random_bindings(names, count=6, seed=0) -> list:
    """Small random values (catch off-by-one errors) and multiples of 5040 (divisible by 1..10)."""
    rng = random.Random(seed)
    names = sorted(names)
    out = []
    for i in range(count):
        if i % 2 == 0:
            out.append({n: rng.randint(1, 97) for n in names})
        else:
            out.append({n: 5040 * rng.randint(1, 9) for n in names})
    return out


def dims_equal(expected: list, got: list, fixed: dict | None = None) -> bool:
    """Expected and inferred shapes agree: same rank; each dim equal under several bindings
    (`fixed`: symbols bound to these values in each, `x.shape[0]` or `cfg.n_embd` style names)."""
    if got is None or len(expected) != len(got):
        return False
    syms = set()
    for e, g in zip(expected, got):
        if e == "?":
            continue
        if str(e).startswith("*") or str(g).startswith("*"):
            if str(e) != str(g):
                return False
            continue
        if g == "?":
            return False
        syms |= symbols(str(e)) | symbols(str(g))
    fixed = {normalise(k): v for k, v in (fixed or {}).items()}
    for env in random_bindings(syms - fixed.keys()):
        env.update((k, v) for k, v in fixed.items() if k in syms)
        for e, g in zip(expected, got):
            if e == "?" or str(e).startswith("*"):
                continue
            try:
                if evaluate(str(e), env) != evaluate(str(g), env):
                    return False
            except (ValueError, SyntaxError, ZeroDivisionError, NameError):
                return False
    return True


def fmt(dims) -> str:
    if dims is None:
        return "null"
    return "[" + ", ".join(str(d) for d in dims) + "]"
