"""A factory's `**kwargs` holding sizes only: its construction context at the flags' defaults (issue 27).

A factory `def net_050(**kwargs): return Net(width=0.5, **kwargs)` hands its caller's keywords on.
Its generic analysis holds that the open `**kwargs` may replace every default the call leaves
(`version='v1'` may be `'v3'`, `se=False` may be True; calls.bind_params), so the model it returns,
run in its construction context (built.py), has every such flag undecided: each layer a flag picks
is either, its channels unknown (timm's factories build every model through `**kwargs`).

The construction context runs the factory's body once more with a `**kwargs` that may hold sizes
only (`SIZES`, a `DictV.open` that is truthy, so every other reader takes it as open): a parameter
the call leaves at a bool, string, float or int-below-1 default there takes that default, as in a
class's own defaults context (flag_defaults.py); an int default from 1 up (`num_classes=1000`)
stays a symbol, as a build passes its own sizes. The mark follows the dict through `dict(**kw)`,
`{**kw}`, `partial` and spreads into calls (`OpenKwargs.sizes`), and widens to a plain open dict
where it meets one (`wider`). That context is no claim about a build that passes anything else:
devicerun/builders.py counts a factory's context for a build only when the build passes into the
factory's `**kwargs` int constants from 1 up, under names that no flag of the file's classes takes.
The rerun reports nothing, and records only what it computes whole under the factory's label
(construction_records.py); the forward of the models it returns runs in the context labelled as
the factory's (built.run_built_models).
"""
from __future__ import annotations

import ast
import contextlib
import functools
import os

from ..shapes.values import BoolV, DictV, FloatV, IntV, StrV
from . import construction_records, costs, global_objects
from .deciding_ints import deciding_ints, handed_on, import_target
from .frames import Frame
from .objects import ClassObj, OpenKwargs
from ..frontend.params import defaulted


class _Sizes:
    """`DictV.open` of a `**kwargs` whose unknown keys hold sizes only (truthy: open to any reader)."""

    def __bool__(self):
        return True

    def __repr__(self):
        return "SIZES"


SIZES = _Sizes()
SIZED_STEPS = 250_000  # the reruns of one analysis and their models' forwards, in all
# of those, the models' forwards (a step of a forward of known sizes costs ten to a hundred of
# a construction's: every block runs, each asking the solver of its windows and pools)
ALL_FORWARD_STEPS = 60_000  # (a MobileNet-V3's forward whose blocks all run: 12,000 to 17,000)
# Z3 queries a sized forward may leave undecided at the full resource limit (contexts.Session.
# fewer_at_full): its windows' paddings at unknown sizes (`(ws - H % ws) % ws` of a symbolic
# image size) are nonlinear formulas Z3 rarely decides, each at the full limit ~3 s (timm_swin
# spent 6 of them, 19 of its 28 CPU s, with the generic forward's answers already given).
SIZED_UNDECIDED_AT_FULL = 1


def wider(a, b):
    """The openness of a dict made of two (False, SIZES or True): open to anything if either is."""
    if a is True or b is True:
        return True
    return SIZES if a is SIZES or b is SIZES else False


def of_kwargs(kwargs):
    """The openness a call's keywords carry (calls.OpenKwargs, its `sizes` mark)."""
    if type(kwargs) is not OpenKwargs:
        return False
    return SIZES if kwargs.sizes else True


def opened(kwargs: dict, openness) -> dict:
    """`kwargs` as keywords a caller's open `**kwargs` of that openness may add to."""
    out = OpenKwargs(kwargs)
    out.sizes = openness is SIZES
    return out


def flag_kind(value) -> bool:
    """A default the sized context decides: a bool, string, float or int below 1 (flag_defaults'
    kinds, and devicerun/builders.py's)."""
    return isinstance(value, (bool, str, float)) or type(value) is int and value < 1


def keeps_value(openness, v) -> bool:
    """Whether `kwargs.pop(key, v)` of a dict of that openness takes the default `v`: sizes only,
    and `v` a flag's kind of value (bool, string, float, int below 1)."""
    if openness is not SIZES:
        return False
    if isinstance(v, BoolV):
        return v.pred is not None and (v.pred.is_true or v.pred.is_false)
    if isinstance(v, IntV):
        return v.expr.value is not None and v.expr.value < 1
    return isinstance(v, StrV) and v.value is not None or isinstance(v, FloatV) and v.value is not None


def keeps_default(openness, f, name: str, own=None) -> bool:
    """Whether parameter `name` of the function `f`, left at its default by keywords of that
    openness, takes it: sizes only, and a constant default of a flag's kind, or, in the analysed
    file's own code (`own`: the analysis's Interp), an int the function compares
    (deciding_ints.py: `output_stride=32` read by `assert output_stride in (8, 16, 32)` is a
    choice, not a size; held a symbol, each stage's `net_stride >= output_stride` was undecided
    and every stage after it of unknown resolution), or hands to a class whose methods compare
    it (`deciding_ints.handed_on`: a block builder's `self.output_stride`). devicerun/builders.py
    counts the context for no build that passes such a name."""
    if openness is not SIZES:
        return False
    node = f.node
    pairs = defaulted(node)
    if any(p.arg == name and isinstance(d, ast.Constant) and flag_kind(d.value) for p, d in pairs):
        return True
    return own is not None and (name in _deciding(node) or name in _handed(f, own))


@functools.lru_cache(maxsize=512)
def _deciding(node: ast.FunctionDef) -> frozenset:
    return frozenset(deciding_ints(node))


def _handed(f, it) -> frozenset:
    """`f`'s int parameters it hands to a class that compares them (deciding_ints.handed_on), the
    classes read from its globals as they are now (a module imported later may add one), each
    only where devicerun/builders.py finds it too: a class of the file, or one a `from M import`
    of it brings from M's own file (`deciding_ints.import_target`; timm's `ClassifierHead`, which
    a package re-exports, builders.py cannot read, so no build passing `num_classes` would have
    been kept out of a context holding it at its default)."""
    tree = it.module_tree
    if tree is None:
        return frozenset()
    classes = tuple((n, c.node) for n in _called_names(f.node) for c in [f.globals.get(n)]
                    if isinstance(c, ClassObj) and c.node is not None and c.name == n and _found_alike(c, n, tree, it.path))
    return _handed_to(f.node, classes) if classes else frozenset()


def _found_alike(c, name: str, tree: ast.Module, path: str) -> bool:
    """Whether builders.py finds the class `c` for `name` in the module `tree` at `path`: a class
    of the module's top level, or a top-level class of the file `import_target` names."""
    if any(c.node is n for n in tree.body):
        return True
    target = import_target(tree, name, path)
    return target is not None and bool(c.module_path) and c.node.col_offset == 0 \
        and os.path.abspath(target) == os.path.abspath(c.module_path)


@functools.lru_cache(maxsize=512)
def _called_names(node: ast.FunctionDef) -> tuple:
    return tuple(sorted({c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}))


@functools.lru_cache(maxsize=512)
def _handed_to(node: ast.FunctionDef, classes: tuple) -> frozenset:
    return frozenset(handed_on(node, dict(classes).get))


def namesake(path: str, name: str) -> bool:
    """Whether the factory `name` builds the model its file is named after: the file's name, its
    underscores dropped, within the factory's (`efficientnet.py`: `efficientnet_b0`,
    `tf_efficientnet_b0`; `mobilenetv3.py`: `mobilenet_v3_small`)."""
    stem = os.path.splitext(os.path.basename(path or ""))[0].strip("_").replace("_", "").lower()
    return bool(stem) and stem in name.replace("_", "").lower()


def gives_way(it, f, account) -> bool:
    """Whether the public factory `f`, not its file's namesake, leaves the sized contexts' budget
    to the namesake ones after it in the file (the models a user opening `efficientnet.py` calls
    by name, past 21 other factories there: each rerun costs about a construction and a forward
    of the whole model, and the budget held five): when what is left could not serve `f` and each
    of them at the cost of the dearest rerun and forward so far (none so far: `f` runs)."""
    if namesake(it.path, f.node.name):
        return False
    pending = sum(1 for g in it.functions if g.cls is None and g.node.lineno > f.node.lineno
                  and g.node.args.kwarg is not None and not g.node.name.startswith("_")
                  and g.module_path in ("", it.path) and namesake(it.path, g.node.name))
    return pending > 0 and (account.sized + (pending + 1) * account.sized_dearest > SIZED_STEPS or
                            account.sized_forwards + (pending + 1) * account.forward_dearest > ALL_FORWARD_STEPS)


def run_models(it, f, fr, run) -> None:
    """`run(frame)` on the frame whose returns are the factory `f`'s models (built.py): its body
    run again with its `**kwargs` holding sizes only, when it is public (a private helper's
    callers, the file's factories, carry their own), takes `**kwargs` and that run returns,
    within half the steps its analysis has left and the analysis's SIZED_STEPS (each rerun and its
    model's forward cost about a construction and a forward of the whole model: timm's files have
    dozens of factories), its imported calls and constructions on shares of their own; else `fr`,
    its generic analysis's. The models' forwards of the analysis's sized contexts run while
    those before took fewer than ALL_FORWARD_STEPS in all (the first of a file's factories
    have theirs; past that, a file of deep windowed transformers spent half a minute on them),
    and a factory not named after its file leaves them to those that are (gives_way)."""
    kw, account = f.node.args.kwarg, costs.account(it)
    spent = account.sized if account is not None else SIZED_STEPS
    if kw is None or not isinstance(fr.env.get(kw.arg), DictV) or it.as_built or f.node.name.startswith("_") \
            or spent >= SIZED_STEPS or account.sized_forwards >= ALL_FORWARD_STEPS or gives_way(it, f, account):
        return run(fr)
    depth, start = fr.facts.depth, it.steps
    fr.facts.push()  # (what the rerun learns is not the generic analysis's)
    generic = global_objects.now(it.global_states)  # (the rerun is a call of its own: global_objects.py)
    global_objects.restore(it.global_states, it.mutated)
    try:
        env = dict(it.param_values.get(f.qualname, {}))
        env[kw.arg] = DictV({}, open=SIZES)
        # its own floats at their defaults too, as builders.py matches a build (the generic
        # analysis held them any float: generic._unpinned)
        env.update({n: d for n, d in f.defaults.items() if isinstance(d, FloatV) and d.value is not None})
        # (what the construction computes is recorded under the factory's label only)
        sub = Frame(env, f.qualname, fr.facts, f.globals, context=construction_records.label(f), cls=f.cls,
                    root=f.qualname, caught=1)
        with costs.sized_share(it):
            flow = costs.within_steps(it, min(max(0, it.step_limit - it.steps) // 2, SIZED_STEPS - spent),
                                lambda: it.exec_block(f.node.body, sub), lambda: "raise")
        sub.record, sub.caught, sub.context = True, 0, ""  # (the models' forward is recorded, as the generic frame's)
        if flow == "raise" or not sub.returns:
            global_objects.restore(generic, it.mutated)
            return run(fr)
        forward = it.steps
        session = it.env.session
        try:
            with costs.sized_forward(it), \
                    session.fewer_at_full(SIZED_UNDECIDED_AT_FULL) if session is not None else contextlib.nullcontext():
                run(sub)
        finally:
            account.sized_forwards += it.steps - forward
            account.forward_dearest = max(account.forward_dearest, it.steps - forward)
    finally:
        account.sized = spent + it.steps - start
        account.sized_dearest = max(account.sized_dearest, it.steps - start)
        while fr.facts.depth > depth:
            fr.facts.pop()
