"""Containers that are one of several known ones (issue 29): the arms of an undecided `if` that
leave lists of layers of different lengths in one name (`proj = [conv]`, then `if stride == 2:
proj = [pool] + proj`), or that build different module lists (`ModuleList([norm, conv])` in one
arm, `ModuleList()` in the other). Their join was unknown, so the `nn.Sequential(*proj)` built
from it, or a loop over the module list, gave no shape, nor anything after it.

The join of such lists is a `ListChoiceV`: unknown to every use (its length, its items, its
truth) but two, which take one option at a time, each as an undecided arm (`run_each`: what one
option requires does not hold after it, its errors are not reported, the program may take
another): spreading it into a call (`f(*proj)`) calls once per option, and the results are
joined (a choice of the Sequentials built, choices.py, whose call joins their results: exact
where they agree); a `for` over it, or over a `ChoiceV` of containers whose items are known,
runs the unrolled loop once per option and joins the environments the options leave. Any other
use may write the list behind the options' backs (`proj.append(x)`): it empties the options
(`written`), and the choice is unknown to every use. Only loops
whose body writes nothing but local names are run so: a write to an attribute or a list in one
option's pass would be seen by the next option's, as if both had run."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.values import ListV, StarSizeV, UnknownV, Value
from .choices import MAX_OPTIONS, is_option
from .objects import ChoiceV, DictChoiceV, ListChoiceV


def list_choice(vals: list) -> Optional[ListChoiceV]:
    """The join of lists of known items, each item a layer or callable (choices.py), or of such
    choices: a `ListChoiceV` of those lists; None where any value is something else."""
    flat = distinct_options(vals, ListChoiceV, lambda o: isinstance(o, ListV) and o.items is not None
                            and o.grown is None and all(is_option(i) for i in o.items))
    if flat is None or len(flat) < 2 or len(flat) > MAX_OPTIONS:
        return None
    return ListChoiceV("list of a length that differs between paths", tuple(flat))


def distinct_options(vals: list, kind: type, ok: Callable) -> Optional[list]:
    """The distinct options of `vals`, each a value or a `kind` choice of such values; None
    where one is not `ok`, or a choice was written."""
    flat: list = []
    for v in vals:
        if isinstance(v, kind) and not v.options:
            return None
        for o in (v.options if isinstance(v, kind) else (v,)):
            if not ok(o):
                return None
            if not any(o is f for f in flat):
                flat.append(o)
    return flat


def written(v: Value) -> None:
    """`v` is used otherwise than spread or looped over (`proj.append(x)`, `kw["k"] = v`, passed
    to a call): if a choice of containers, it may now hold what no option holds, so it has none."""
    if isinstance(v, (ListChoiceV, DictChoiceV)):
        v.options = ()


def alternatives(v: Value, iterate: Callable, fr) -> Optional[list]:
    """The items of each option of `v` (a `ListChoiceV`, or a `ChoiceV` whose options all have
    known items); None when `v` is no such choice or an option's items are not known."""
    if isinstance(v, ListChoiceV):
        opts = v.options
    elif isinstance(v, ChoiceV):
        opts = v.options
    else:
        return None
    out = []
    for o in opts or [None]:  # (a choice written has no options: not known)
        items = iterate(o, fr) if o is not None else None
        if items is None:
            return None
        out.append(items)
    return out


def run_each(cx, fr, runs: list, conds: tuple = ()) -> list:
    """Each of `runs` as one undecided arm (`cx`: a component binding in_arm, open_arm, close_arm
    and join_arms), under its condition in `conds` (None: none), with its errors not reported;
    (condition, what it returned) of the arms that got on."""
    outs, arms = [], []
    fr.caught += 1
    try:
        for i, run in enumerate(runs):
            cond = conds[i] if conds else None
            mark = cx.open_arm()  # (a rank one option needs is not another's: env.close_arm)
            out, died = cx.in_arm(fr, (cond,), None, run)
            arms.append((cx.close_arm(mark), not died))
            if not died:
                outs.append((cond, out))
    finally:
        fr.caught -= 1
    cx.join_arms(arms)
    return outs


def spread_each(cx, call: Callable, args: list, at: int, choice: ListChoiceV, fr) -> Value:
    """`f(..., *choice, ...)`: `call(args)` with each option's items spread at `at`, joined."""
    if not choice.options or any(o.items is None for o in choice.options) or any(isinstance(a, StarSizeV) for a in args):
        return UnknownV("*args")
    outs = run_each(cx, fr, [lambda o=o: call(args[:at] + list(o.items) + args[at:]) for o in choice.options])
    return cx.join_values([out for _, out in outs]) if outs else UnknownV("call")


def writes_only_names(st: ast.For) -> bool:
    """A loop run once per option (see the module): no `else`, its target and every statement of
    its body (through nested `if`s) assigning local names only, and no `yield` or `await`."""
    if st.orelse or not _names(st.target):
        return False
    return _plain(st.body) and not any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await))
                                       for s in st.body for n in ast.walk(s))


def stored_names(st: ast.For) -> set:
    """The names the loop assigns (its target's, its body's)."""
    return {n.id for s in [st.target] + st.body for n in ast.walk(s) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}


def _plain(body: list) -> bool:
    for s in body:
        if isinstance(s, ast.Assign):
            ok = all(_names(t) for t in s.targets)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            ok = isinstance(s.target, ast.Name)
        elif isinstance(s, ast.If):
            ok = _plain(s.body) and _plain(s.orelse)
        else:
            ok = isinstance(s, ast.Pass)
        if not ok:
            return False
    return True


def _names(t) -> bool:
    if isinstance(t, ast.Name):
        return True
    return isinstance(t, (ast.Tuple, ast.List)) and all(_names(e) for e in t.elts)
