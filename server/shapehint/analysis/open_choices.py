"""Callables chosen among known ones and one the analysis cannot see (issue 28, causes 5 and 1).

`fn = local_impl; if cfg.kind != "local": fn = REGISTRY[cfg.kind]` with a registry the analysis
cannot read (another package's, filled at import time) joins to an unknown value: the call's
result may be anything, so nothing is claimed after it. But when the known option is the one
called, its body runs with these arguments, and its lines' shapes in that calling context are
the user's answer (the attention function of a transformer, chosen by a configuration string).
So the join is an `OpenChoiceV`, unknown to every other use, carrying its known options; a call
of it runs each as an undecided arm (`Calls._call_each`: errors not reported, what one option
requires not kept), beside an arm for the unknown option, a call of an unknown value (nothing
the analysis can see, an unknown result), so the call's result, their join, stays unknown. A line of an option then lists this call as one of its contexts,
which is true of every run that takes that option and silent about the others."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import UnknownV, Value
from .choices import MAX_OPTIONS, choice_of
from .objects import ChoiceV, OpenChoiceV


def open_choice(vals: list) -> Optional[Value]:
    """The join of `vals` when some are callables the analysis follows and the others unknown
    values: an `OpenChoiceV` of the former; else None."""
    unknown = [v for v in vals if isinstance(v, UnknownV)]
    known = [o for v in unknown if isinstance(v, OpenChoiceV) for o in v.options]
    known += [v for v in vals if not isinstance(v, UnknownV)]
    if not unknown or not known:
        return None
    picked = choice_of(known)
    if picked is None:
        return None
    options = picked.options if isinstance(picked, ChoiceV) else (picked,)
    return OpenChoiceV("join", options) if len(options) <= MAX_OPTIONS else None
