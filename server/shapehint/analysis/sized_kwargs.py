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
The rerun records nothing and reports nothing: only the forward of the models it returns runs, in
the context labelled as the factory's (built.run_built_models).
"""
from __future__ import annotations

import ast
import contextlib
import functools

from ..shapes.values import BoolV, DictV, FloatV, IntV, StrV
from . import costs, global_objects
from .deciding_ints import deciding_ints
from .frames import Frame
from .objects import OpenKwargs
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


def keeps_default(openness, node: ast.FunctionDef, name: str, own: bool = False) -> bool:
    """Whether parameter `name` of `node`, left at its default by keywords of that openness,
    takes it: sizes only, and a constant default of a flag's kind, or, in the analysed file's
    own code (`own`), an int the function compares (deciding_ints.py: `output_stride=32` read by
    `assert output_stride in (8, 16, 32)` is a choice, not a size; held a symbol, each stage's
    `net_stride >= output_stride` was undecided and every stage after it of unknown resolution).
    devicerun/builders.py counts the context for no build that passes such a name."""
    if openness is not SIZES:
        return False
    pairs = defaulted(node)
    if any(p.arg == name and isinstance(d, ast.Constant) and flag_kind(d.value) for p, d in pairs):
        return True
    return own and name in _deciding(node)


@functools.lru_cache(maxsize=512)
def _deciding(node: ast.FunctionDef) -> frozenset:
    return frozenset(deciding_ints(node))


def run_models(it, f, fr, run) -> None:
    """`run(frame)` on the frame whose returns are the factory `f`'s models (built.py): its body
    run again with its `**kwargs` holding sizes only, when it is public (a private helper's
    callers, the file's factories, carry their own), takes `**kwargs` and that run returns,
    within half the steps its analysis has left and the analysis's SIZED_STEPS (each rerun and its
    model's forward cost about a construction and a forward of the whole model: timm's files have
    dozens of factories), its imported calls and constructions on shares of their own; else `fr`,
    its generic analysis's. The models' forwards of the analysis's sized contexts run while
    those before took fewer than ALL_FORWARD_STEPS in all (the first of a file's factories
    have theirs; past that, a file of deep windowed transformers spent half a minute on them)."""
    kw, account = f.node.args.kwarg, costs.account(it)
    spent = account.sized if account is not None else SIZED_STEPS
    if kw is None or not isinstance(fr.env.get(kw.arg), DictV) or it.as_built or f.node.name.startswith("_") \
            or spent >= SIZED_STEPS or account.sized_forwards >= ALL_FORWARD_STEPS:
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
        sub = Frame(env, f.qualname, fr.facts, f.globals, cls=f.cls, root=f.qualname, record=False, caught=1)
        with costs.sized_share(it):
            flow = costs.within_steps(it, min(max(0, it.step_limit - it.steps) // 2, SIZED_STEPS - spent),
                                lambda: it.exec_block(f.node.body, sub), lambda: "raise")
        sub.record, sub.caught = True, 0  # (the models' forward is recorded, as the generic frame's)
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
    finally:
        account.sized = spent + it.steps - start
        while fr.facts.depth > depth:
            fr.facts.pop()
