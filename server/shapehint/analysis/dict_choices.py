"""Keyword dicts that are one of several known ones: `kw = {}` on one path and `kw = {"k": True}`
on another (a flag an undecided test sets), then `f(..., **kw)`. Dicts of the same keys join
key by key (comprehensions.py); dicts of different keys joined were unknown, and so was every
call they were spread into, and all that followed it.

Their join is a `DictChoiceV`: unknown to every use but a `**` spread into a call, which calls
once per option, each as an undecided arm (list_choices.run_each), and joins the results. Any
other use may write the dict behind the options' backs (`kw["k"] = v`, `kw.update(...)`, `del`,
a method reading it): that empties the options (list_choices.written), and a spread of it is
then unknown, as before."""
from __future__ import annotations

from typing import Callable, Optional

from ..shapes.values import DictV, UnknownV, Value
from .choices import MAX_OPTIONS
from .list_choices import distinct_options, run_each
from .objects import DictChoiceV, OpenKwargs


def dict_choice(vals: list) -> Optional[DictChoiceV]:
    """The join of closed dicts (or such choices) whose keys differ: a `DictChoiceV` of them;
    None where any value is something else, or a choice that was written."""
    flat = distinct_options(vals, DictChoiceV, lambda o: isinstance(o, DictV) and not o.open)
    if flat is None or len(flat) < 2 or len(flat) > MAX_OPTIONS:
        return None
    return DictChoiceV("dict whose keys differ between paths", tuple(flat))


def spread_each(cx, call: Callable, kwargs: dict, choice: DictChoiceV, fr) -> Value:
    """`f(..., **choice)`: `call(kwargs)` with each option's items added, joined."""
    if not choice.options or isinstance(kwargs, OpenKwargs) or any(o.open for o in choice.options):
        return UnknownV("**kwargs")
    outs = run_each(cx, fr, [lambda o=o: call({**kwargs, **o.items}) for o in choice.options])
    return cx.join_values([out for _, out in outs]) if outs else UnknownV("call")
