"""Choosing what a device run executes: entries, constructor arguments and input tensors.

Reads the user's source with `ast` only (no engine needed, nothing is imported or executed).
Invariants:
- An entry is a top-level `nn.Module` subclass (called through `forward`), a top-level function,
  or what `--entry QUALNAME` names (`Net`, `Net.forward`, `Net.encode`, `helper`). Without
  `--entry`, entries whose constructor arguments or input shapes cannot be determined are skipped
  with a reason; with it, that reason is the run's error.
- Input shapes come from annotations (jaxtyping, `TensorType`), `assert`/`torch._check` on shapes
  and `B, C, H, W = x.shape` unpacking, or from `--input`. Symbols get small admissible values:
  batch 2, the others distinct (z3 when constraints need it); several candidates are produced,
  smallest first, and the runner keeps the first that passes a meta dry run.
- dtype and value range follow use: an Embedding's input gets int64 ids below its size (resolved
  by the runner from the live module), a cross-entropy target int64 classes, a mask bool.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from ..frontend.pyast import parse as parse_ast
from ..frontend.names import dotted
from .candidates import make_candidates, comment_entries
from .shape_reader import Param, ShapeReader


class PlanError(ValueError):
    """The user asked for something we cannot run (unknown entry, missing argument, bad --input)."""


@dataclass
class EntryPlan:
    qualname: str
    kind: str  # class | function
    method: str = "forward"
    ctor_args: dict = field(default_factory=dict)
    params: list = field(default_factory=list)
    constraints: list = field(default_factory=list)  # python expressions over symbols
    candidates: list = field(default_factory=list)
    problem: Optional[str] = None
    param_dims: dict = field(default_factory=dict)  # name -> dims (symbols) for compare's binding
    ctor_expr: Optional[str] = None  # `GPT(GPTConfig())` from a `# entry:` comment or --build
    from_comment: bool = False  # planned from the file's `# entry:` comment
    defined_in: Optional[str] = None  # the class of the file whose method it runs (itself or a base)
    guessed: bool = False  # inputs guessed for an entry nobody named: skip it when none runs on meta
    unknown: list = field(default_factory=list)  # Params the source gives no shape for
    order: list = field(default_factory=list)  # every parameter's name, in the signature's order
    sources: dict = field(default_factory=dict)  # name -> (given | annotation | inferred, reason)
    helper: bool = False  # other code of the file calls it and gives it its inputs (not a refusal)
    refusal: Optional[str] = None  # inferred inputs: the refusal when none of the candidates runs on meta
    inherited: bool = False  # its method is a base's of another module: only the analysis sees it

    def request(self) -> dict:
        return {"qualname": self.qualname, "kind": self.kind, "method": self.method, "ctor_expr": self.ctor_expr,
                "guessed": self.guessed and len(self.candidates) > 1, "refusal": self.refusal,
                "ctor_args": self.ctor_args, "candidates": self.candidates}


def parse_input(text: str) -> tuple:
    """`ids=2,16:long` -> ("ids", {"shape": [2, 16], "dtype": "int64"}); `n=5` stays a tensor of shape [5]
    unless written `n=int:5`."""
    if "=" not in text:
        raise PlanError(f"--input {text!r}: expected NAME=2,3,32,32[:dtype]")
    name, spec = text.split("=", 1)
    name = name.strip()
    if spec.startswith("int:"):
        return name, {"value": int(spec[4:])}
    shape, _, dtype = spec.partition(":")
    try:
        dims = [int(d) for d in shape.replace("x", ",").split(",") if d.strip()] if shape.strip() else []
    except ValueError:
        raise PlanError(f"--input {text!r}: dimensions must be integers") from None
    if any(d < 0 for d in dims):
        raise PlanError(f"--input {text!r}: dimensions must be ≥ 0")
    dtype = {"long": "int64", "int": "int32", "float": "float32", "half": "float16", "": None}.get(dtype, dtype)
    return name, {"shape": dims, "dtype": dtype}


def _module_classes(tree) -> dict:
    """Top-level classes deriving (transitively, within the file) from something named *Module."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    found: dict = {}
    changed = True
    while changed:
        changed = False
        for name, node in classes.items():
            if name in found:
                continue
            bases = [dotted(b).split(".")[-1] for b in node.bases]
            if any(b == "Module" or b in found for b in bases):
                found[name] = node
                changed = True
    return found


def _constants(tree) -> dict:
    out = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Constant) and type(n.value.value) is int:
            out[n.targets[0].id] = n.value.value
    return out


def _layer_attrs(cls) -> dict:
    """self.NAME = nn.Layer(...) in the class' methods -> {NAME: "Layer"}."""
    out = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and dotted(t.value) == "self":
                    out[t.attr] = dotted(node.value.func).split(".")[-1]
    return out


def _find_method(cls, name):
    for n in cls.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name:
            return n
    return None


def _find_inherited(cls, name, classes, owner: Optional[list] = None):
    """The method as the class has it: its own, else a base's defined in the same file (whose
    name is appended to `owner`)."""
    seen = set()
    while cls is not None and cls.name not in seen:
        seen.add(cls.name)
        fn = _find_method(cls, name)
        if fn is not None:
            if owner is not None:
                owner.append(cls.name)
            return fn
        cls = next((classes.get(dotted(b)) for b in cls.bases if dotted(b) in classes), None)
    return None


def _plan_without_source(qual, method, cls, inputs: dict, ctor_args, build, classes, tree) -> EntryPlan:
    """An entry whose method is inherited from another module: only --input can say its inputs."""
    args, missing = _ctor_args(cls, classes, ctor_args or {}, tree) if build is None else ({}, [])
    plan = EntryPlan(qual, "class", method, args, ctor_expr=build)
    bases = ", ".join(dotted(b) or "?" for b in cls.bases) or "object"
    if missing:
        plan.problem = (f"{qual}() needs constructor arguments without defaults: {', '.join(missing)}; give them with "
                        + " ".join(f"--arg {m}=VALUE" for m in missing))
    elif not inputs:
        plan.problem = (f"{qual}.{method} is inherited from {bases}, defined outside this file: give its inputs "
                        f"with --input NAME=2,3,224,224 (one per tensor argument)")
        plan.inherited = True  # the analysis, which follows the file's imports, may find them (inferred.py)
    else:
        plan.params = [Param(name, override=dict(spec)) for name, spec in inputs.items()]
        plan.order = list(inputs)
        plan.sources = {name: ("given", "--input") for name in inputs}
        plan.candidates = make_candidates(plan.params, [])
    return plan


def _ctor_args(cls, classes, given: dict, tree) -> tuple:
    """({name: {"expr": ...}}, [missing names]) for the class' __init__ (searching bases in the file)."""
    init, c = None, cls
    while c is not None and init is None:
        init = _find_method(c, "__init__")
        base = next((classes.get(dotted(b)) for b in c.bases if dotted(b) in classes), None)
        c = base
    out = {k: {"expr": v} for k, v in given.items()}
    if init is None:
        return out, []
    a = init.args
    pos = (a.posonlyargs + a.args)[1:]
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    missing = []
    all_classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    for arg, default in list(zip(pos, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
        if default is not None or arg.arg in out:
            continue
        ann = dotted(arg.annotation) if arg.annotation is not None else ""
        if ann in all_classes:  # a config class of the same file, built with its defaults
            out[arg.arg] = {"expr": f"{ann}()"}
        else:
            missing.append(arg.arg)
    return out, missing


def list_entries(tree) -> list:
    """Default entries: top-level nn.Module classes, then top-level functions, in source order."""
    mods = _module_classes(tree)
    out = []
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and n.name in mods and _find_method(n, "forward") is not None:
            out.append((n.name, "class", "forward"))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("_"):
            out.append((n.name, "function", None))
    return out


def _plan_from_comment(call: str, specs: dict, bindings: list, classes: dict, funcs: dict, consts: dict):
    head = call.split("(", 1)[0].strip()
    if head in classes and _find_method(classes[head], "forward") is not None:
        plan = EntryPlan(head, "class", "forward", ctor_expr=call if "(" in call else f"{call}()", from_comment=True)
        reader = ShapeReader(_find_method(classes[head], "forward"), _layer_attrs(classes[head]), consts)
    elif head in funcs:
        plan = EntryPlan(head, "function", "", from_comment=True)
        reader = ShapeReader(funcs[head], {}, consts)
    else:
        return None
    for name, (dims, dtype) in specs.items():
        p = reader.params.get(name) or Param(name)
        p.dims, p.dtype = dims, dtype or p.dtype
        reader.params[name] = p  # an int input without a known use keeps values in [0, 2): valid anywhere
    for name in [n for n, p in reader.params.items() if n not in specs]:
        del reader.params[name]  # the comment lists exactly what the entry gets
    _fill_inputs(plan, reader, {})
    cands = []
    for b in bindings:  # the file's own admissible bindings first
        cand = {}
        for p in plan.params:
            if p.dims is None or any(isinstance(d, str) and d not in b for d in p.dims):
                break
            cand[p.name] = {"shape": [b[d] if isinstance(d, str) else d for d in p.dims], "dtype": p.dtype or "float32",
                            **({"role": p.role} if p.role else {})}
        else:
            if cand and cand not in cands:
                cands.append(cand)
    plan.candidates = cands + [c for c in plan.candidates if c not in cands]
    return plan


def plan_entries(text: str, entry: Optional[str] = None, inputs: Optional[dict] = None,
                 ctor_args: Optional[dict] = None, build: Optional[str] = None) -> list:
    """EntryPlans (possibly with `problem` set). Raises PlanError for an unknown --entry.
    `build`: an expression that builds the (class) entry's instance, e.g. a factory call."""
    tree = parse_ast(text)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    consts = _constants(tree)
    if entry:
        head, _, method = entry.partition(".")
        if head in classes and (method == "" or _find_method(classes[head], method)):
            wanted = [(head, "class", method or "forward")]
        elif head in funcs and not method:
            wanted = [(head, "function", None)]
        else:
            raise PlanError(f"--entry {entry}: no such class, method or top-level function in the file; "
                            f"candidates: {', '.join(q for q, _, _ in list_entries(tree)) or 'none'}")
    else:
        wanted = list_entries(tree)
    plans = []
    if not entry and not inputs and not ctor_args:  # the file says how to call itself: that first
        for call, specs, bindings in comment_entries(text):
            plan = _plan_from_comment(call, specs, bindings, classes, funcs, consts)
            if plan is not None:
                plans.append(plan)
                wanted = [w for w in wanted if w[0] != plan.qualname]
    for qual, kind, method in wanted:
        if kind == "class":
            cls = classes[qual]
            owner: list = []
            fn = _find_inherited(cls, method, classes, owner)
            if fn is None:  # inherited from a class of another module: its parameters are unknown here
                plans.append(_plan_without_source(qual, method, cls, inputs or {}, ctor_args, build, classes, tree))
                continue
            args, missing = _ctor_args(cls, classes, ctor_args or {}, tree) if build is None else ({}, [])
            plan = EntryPlan(qual, "class", method, args, ctor_expr=build, defined_in=owner[0])
            if missing:
                plan.problem = (f"{qual}() needs constructor arguments without defaults: {', '.join(missing)}; "
                                f"give them with " + " ".join(f"--arg {m}=VALUE" for m in missing) +
                                " (VALUE is a Python expression evaluated in the module)")
            reader = ShapeReader(fn, _layer_attrs(cls), consts)
            hints = _ctor_hints(cls, ctor_args or {})
        else:
            if build is not None:
                raise PlanError(f"--build builds a module: --entry {qual} is a function")
            plan = EntryPlan(qual, "function", "")
            reader = ShapeReader(funcs[qual], {}, consts)
            hints = []
        _fill_inputs(plan, reader, inputs or {}, hints)
        plan.guessed = entry is None  # found by us, not named by the user or the file
        plans.append(plan)
    return plans


def _ctor_hints(cls, given: dict) -> list:
    """Ints among the constructor's defaults and given arguments: likely feature sizes."""
    init = _find_method(cls, "__init__") if cls is not None else None
    vals = []
    for d in (init.args.defaults + [d for d in init.args.kw_defaults if d is not None]) if init else []:
        if isinstance(d, ast.Constant) and type(d.value) is int and d.value > 1:
            vals.append(d.value)
    for v in given.values():
        try:
            lit = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            continue
        if type(lit) is int and lit > 1:
            vals.append(lit)
    return sorted(set(vals))


def _fill_inputs(plan: EntryPlan, reader: ShapeReader, overrides: dict, hints=()) -> None:
    params = []
    for p in reader.params.values():
        if p.name in overrides:
            p.override = dict(overrides[p.name])
        elif p.dims is None and not p.is_int and (p.has_default or (plan.problem and not plan.unknown)):
            continue  # optional argument without a shape: let Python use its default
        elif p.is_int and p.has_default:
            continue
        elif p.dims is None and not p.is_int:
            plan.unknown.append(p)  # the inferred signature may supply it (`inferred.complete`)
            plan.problem = plan.problem or (
                f"no shape is known for parameter {p.name!r} of {plan.qualname}: annotate it "
                f"(Float[Tensor, \"B C H W\"]), assert its shape (assert {p.name}.shape == (B, 3, 32, 32)) "
                f"or give --input {p.name}=2,3,32,32")
            continue
        params.append(p)
    plan.params = params
    plan.order = list(reader.params)
    plan.sources = {p.name: ("given", "--input") if p.override is not None else
                    ("annotation", "from the source (annotation, assertion or unpacking)") for p in params}
    plan.constraints = reader.constraints
    plan.param_dims = {p.name: p.dims for p in params if p.dims is not None and p.override is None}
    if plan.problem and not plan.problem.startswith(plan.qualname + "()"):
        return
    plan.candidates = make_candidates(params, reader.constraints, hints)




def param_dims_by_function(text: str) -> dict:
    """{qualname: {param: dims}} for every function and method, plus {"__lines__": {qualname: def line}}."""
    tree = parse_ast(text)
    consts = _constants(tree)
    out: dict = {"__lines__": {}}

    def visit(body, prefix, layers):
        for n in body:
            if isinstance(n, ast.ClassDef):
                visit(n.body, prefix + n.name + ".", _layer_attrs(n))
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + n.name
                try:
                    reader = ShapeReader(n, layers, consts)
                except Exception:  # noqa: BLE001 - an odd signature must not stop the run
                    continue
                out[q] = {p.name: p.dims for p in reader.params.values() if p.dims is not None}
                out["__lines__"][q] = n.lineno
                visit(n.body, q + ".<locals>.", {})
    visit(tree.body, "", {})
    return out
