"""Inputs the source does not spell: the inferred signature's typical input.

An entry whose tensor parameters carry no annotation, assertion or unpacking (`plan.unknown`)
gets them from the function's inferred signature (`questions.signatures`) — unless other functions
of the file call it (a helper runs in their calls, where its lines are inferred): its typical input is
the first candidate, and its symbolic shape with its constraints gives the runner's meta dry run
further candidates. Each input says where it came from (`EntryPlan.sources`: given, annotation,
inferred) and why. When the signature has no typical input, the plan's problem says why in one
line (a provable error, a rank nothing fixes, an operation the analysis cannot follow).
An entry whose method a base class of another module defines gets its parameters from the
analysis (which follows the file's imports) and the common input shapes (`_inherited`).
"""
from __future__ import annotations

import ast

from ..frontend.pyast import parse as parse_ast
from .candidates import make_candidates


def complete(plans: list, path: str, text: str) -> None:
    """Fill the unknown inputs of `plans` in place (one analysis of the file for all of them)."""
    todo = [p for p in plans if p.unknown and _only_inputs_missing(p)]
    inherited = [p for p in plans if p.inherited and p.problem]
    if not todo and not inherited:
        return
    try:
        from ..analysis.api import analyze_session
        from ..questions.signatures import signature
        session = analyze_session(text, path)
        if session.interp is None:  # the analysis raised (api.failed): say why, not what broke after
            raise RuntimeError("; ".join(session.result.stats.get("internal_errors") or ["the analysis failed"]))
    except Exception as exc:  # noqa: BLE001 - no analysis: the plans keep their own problem
        for p in todo + inherited:
            p.problem += f" (the input could not be inferred: {type(exc).__name__}: {exc})"
        return
    for plan in inherited:
        _inherited(plan, session)
    from ..questions.migrate import SEARCH_STEPS_PER_ANSWER
    budget = [SEARCH_STEPS_PER_ANSWER]  # the rank searches of all the entries together
    for plan in todo:
        qual = f"{plan.defined_in or plan.qualname}.{plan.method}" if plan.kind == "class" else plan.qualname
        try:
            sig = signature(session, qual, budget)
        except Exception as exc:  # noqa: BLE001 - a bug costs this entry's inference, not the run
            plan.problem = f"no input can be inferred for {qual}: {type(exc).__name__}: {exc}"
            continue
        if sig.callers:
            # a helper: its lines are inferred in its callers' contexts, so a standalone run on an
            # input of our choosing would be compared with shapes from calls it was not part of
            plan.problem += f" (it is called by {', '.join(sig.callers)}, which give it its inputs)"
            plan.helper = True
            continue
        _apply(plan, qual, sig)


def _inherited(plan, session) -> None:
    """`class Distilled(VisionTransformer)` with no `forward` of its own: the method's source is
    another module's, which the analysis reads but does not analyse on its own, so there is no
    signature. Its tensor parameters (those without a default) get the common input shapes, the
    first that runs on meta kept; the refusal stays the plan's problem when none does."""
    from .shape_reader import Param
    it = session.interp
    cls = next((c for c in (it.classes if it is not None else ()) if c.qualname == plan.qualname
                and c.module_path in ("", it.path)), None)
    fn = cls.lookup(plan.method) if cls is not None else None
    node = getattr(fn, "node", None)
    if not isinstance(node, ast.FunctionDef):
        return
    a = node.args
    pos = (a.posonlyargs + a.args)[1:]
    required = [p.arg for p in pos[:len(pos) - len(a.defaults)]]
    if not required or a.kwonlyargs and any(d is None for d in a.kw_defaults):
        return  # nothing to give, or a keyword-only input the common shapes do not name
    owner = fn.qualname.rsplit(".", 1)[0]
    plan.unknown = [Param(n) for n in required]
    plan.order = [p.arg for p in pos]
    why = (f"{plan.qualname}.{plan.method} is {owner}.{plan.method}, defined outside this file, which the "
           f"analysis follows but infers no signature for: the first common input shape that runs on meta")
    _try_common_shapes(plan, owner, plan.problem, why)


def _only_inputs_missing(plan) -> bool:
    """The plan's problem is only the missing shapes (not constructor arguments)."""
    return plan.problem is not None and plan.problem.startswith("no shape is known")


def _apply(plan, qual: str, sig) -> None:
    by_name = {p.name: p for p in sig.params}
    names = ", ".join(p.name for p in plan.unknown)
    example = sig.example()
    missing = [p.name for p in plan.unknown if by_name.get(p.name) is None or by_name[p.name].example is None]
    if example is None or missing:
        why = sig.problem or f"nothing in {qual} fixes the shape of {', '.join(missing)}"
        refusal = (f"no input can be found for {names} of {qual}: {why}; give one with "
                   + " ".join(f"--input {n}=..." for n in (missing or [p.name for p in plan.unknown])))
        if sig.rank_open:
            _try_common_shapes(plan, qual, refusal)
        else:
            plan.problem = refusal
        return
    first = {}
    for p in plan.unknown:
        s = by_name[p.name]
        p.dims = list(s.shape)
        p.dtype = p.dtype or s.dtype
        if p.dtype == "int64" and p.role is None:
            p.role = "ids"
        bound, needs = ", ".join(s.constraints), ", ".join(s.requires)
        plan.sources[p.name] = ("inferred", f"inferred from {qual}: {p.name} is [{', '.join(map(str, s.shape))}]"
                                + (f" with {bound}" if bound else "") + (f" for a model built with {needs}" if needs else "")
                                + f"; typical input {s.example}"
                                + (f" ({s.reason})" if s.reason else ""))
        first[p.name] = s.example
    order = {n: i for i, n in enumerate(plan.order)}
    plan.params = sorted(plan.params + plan.unknown, key=lambda p: order.get(p.name, len(order)))
    plan.constraints = list(plan.constraints) + [c for s in sig.params for c in s.constraints]
    plan.problem = None
    plan.refusal = (f"no input can be found for {names} of {qual}: neither the inferred input nor a common input "
                    f"shape runs on meta; give one with " + " ".join(f"--input {p.name}=..." for p in plan.unknown))
    cands = make_candidates(plan.params, plan.constraints)
    typical = []
    for c in cands[:1]:  # the signature's typical input, with the other inputs as the source gives them
        t = {k: (dict(v, shape=first[k]) if k in first else v) for k, v in c.items()}
        typical.append(t)
    plan.candidates = typical + [c for c in cands if c not in typical]
    common = [c for c in _common_candidates(plan, qual, plan.candidates[0] if plan.candidates else {})
              if c not in plan.candidates]
    if any(by_name[p.name].reason for p in plan.unknown):
        # a rank the rank search chose (the fewest axes that pass) is what the analysis could
        # follow, not what the model needs when an operation on the way is opaque to it: the
        # common shapes of other ranks follow, and the meta dry run keeps the first that runs
        # (right after the typical input: a rank that fails on meta fails with every size)
        plan.candidates = plan.candidates[:1] + common + plan.candidates[1:]
    else:
        # last: a size the code checks at run time but the signature leaves free (a patch
        # embedding built with `img_size=32` asserting its input's height) is one the model is
        # built for, among the common shapes (_built_sizes)
        plan.candidates = plan.candidates + common


def _try_common_shapes(plan, qual: str, refusal: str, why: str = "") -> None:
    """The code fixes no rank the analysis could follow through every operation (an opaque layer or
    helper on the way): the model may still take an input people commonly give. The meta dry run
    tries the common shapes; the refusal is the runner's, when none of them runs (the planner
    cannot know which will)."""
    order = {n: i for i, n in enumerate(plan.order)}
    known = make_candidates(plan.params, plan.constraints) if plan.params else []
    plan.params = sorted(plan.params + plan.unknown, key=lambda p: order.get(p.name, len(order)))
    plan.candidates = _common_candidates(plan, qual, known[0] if known else {}, rank_open=True, why=why)
    plan.refusal = refusal
    plan.problem = None


# Input shapes people give models, tried on meta in this order when the code leaves the rank open:
# an image batch, a small image batch, a sequence of feature vectors, feature vectors.
COMMON_SHAPES = ([2, 3, 224, 224], [2, 3, 64, 64], [2, 16, 32], [2, 32])
COMMON_IDS = ([2, 16],)


def _common_candidates(plan, qual: str, base: dict, rank_open: bool = False, why: str = "") -> list:
    why = why or (f"the code of {qual} does not fix the rank of {{name}} (an operation on its way is opaque to the "
           f"analysis): the first common input shape that runs on meta") if rank_open else (
        f"{qual} leaves the rank of {{name}} open to the analysis (an operation on its way is opaque to "
        f"it) and the rank it could follow does not run: the first common input shape that runs on meta")
    out = []
    images = list(COMMON_SHAPES[:2]) + [[2, 3, n, n] for n in _built_sizes(plan) if [2, 3, n, n] not in COMMON_SHAPES]
    common = images + list(COMMON_SHAPES[2:])
    for i in range(max(len(common), len(COMMON_IDS))):
        cand = dict(base)
        for p in plan.unknown:
            ids = p.dtype == "int64" or p.role == "ids"
            shapes = COMMON_IDS if ids else common
            spec = {"shape": list(shapes[min(i, len(shapes) - 1)]), "dtype": p.dtype or "float32"}
            if ids:
                spec["role"] = "ids"
            spec["source"], spec["reason"] = "inferred", why.format(name=p.name)
            cand[p.name] = spec
        if cand not in out:
            out.append(cand)
    return out


def _built_sizes(plan) -> list:
    """Image sizes the model is built for: the integer arguments of its construction (`--build`,
    `--arg`, the `# entry:` comment) that could be a side (`img_size=32`), in order."""
    named, other = [], []  # keywords that name a size (img_size, resolution) first
    texts = [("", plan.ctor_expr)] if plan.ctor_expr else []
    texts += [(k, str(v)) for k, v in plan.ctor_args.items()]
    for key, text in texts:
        try:
            tree = parse_ast(text, mode="eval")
        except SyntaxError:
            continue
        sized = {id(kw.value): kw.arg for n in ast.walk(tree) if isinstance(n, ast.Call) for kw in n.keywords}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) is int and 8 <= node.value <= 1024:
                name = (sized.get(id(node)) or key or "").lower()
                (named if any(w in name for w in SIZE_WORDS) else other).append(node.value)
    return list(dict.fromkeys(named + other))[:MAX_BUILT_SIZES]


SIZE_WORDS = ("size", "res", "img", "image")


MAX_BUILT_SIZES = 4  # each costs a meta try


def stamp_sources(plan) -> None:
    """Every candidate input says where its shape came from (the run JSON's `source`, `reason`)."""
    for c in plan.candidates:
        for name, spec in c.items():
            if "reason" in spec:
                continue  # a fallback says why itself
            src, why = plan.sources.get(name) or (
                "annotation", "from the file's `# entry:` comment" if plan.from_comment else "from the source")
            spec["source"], spec["reason"] = src, why
