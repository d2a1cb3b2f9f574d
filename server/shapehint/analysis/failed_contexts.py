"""A construction context whose run fails costs that context alone.

After a function's generic analysis, the engine runs the models it builds in construction
contexts (a factory's returns, built.py; a class at its flags' defaults, flag_defaults.py). Those
runs reach code the generic analysis never did, with values it never had; an exception there (a
bug of the analysis) used to end the whole analysis, so the file had no answer at all. It now ends
that context only: what the context observed (its records, labelled `QUALNAME:LINE` of the
function that built it, and the diagnostics made while it ran) is forgotten, since a context cut
short in the middle is no claim, and the function's generic analysis stands. Budgets and
cancellation are not failures: they go on up as before.
"""
from __future__ import annotations

import logging

from .frames import Budget, Cancelled

log = logging.getLogger(__name__)


def run_guarded(it, f, facts, run) -> bool:
    """`run()`, the construction contexts of `f` whose generic analysis has the store `facts`:
    whether it ran to its end."""
    depth, diagnostics = facts.depth, it.sink.diagnostic_keys()
    try:
        run()
        return True
    except (Budget, Cancelled):
        raise
    except Exception as exc:  # (RecursionError too: a deep model must not end the file's analysis)
        log.debug("the construction contexts of %s failed; their records are dropped", f.qualname, exc_info=exc)
        while facts.depth > depth:  # (arms the run was inside when it failed)
            facts.pop()
        it.sink.forget_built(f"{f.qualname}:", diagnostics)
        return False
