"""The Python packages a command needs, checked before it runs.

The analysis turns its own exceptions into no answers (a bug costs one file, not the session),
so without this check a missing `parso` or `z3-solver` would look like a file with no shape
errors. A missing package is an installation problem: one clear line and exit status 2.
"""
from __future__ import annotations

import importlib.util

# (module imported, distribution to install)
ANALYSIS = (("parso", "parso"), ("z3", "z3-solver"))
LANGUAGE_SERVER = (("pygls", "pygls"), ("lsprotocol", "lsprotocol"))


def missing(needs) -> list:
    """The distributions of `needs` whose module cannot be found (found, not imported: z3 is
    heavy and the analysis imports it only when it first solves)."""
    out = []
    for module, dist in needs:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(dist)
    return out


def problem(command: str):
    """One line saying what `command` lacks and how to install it, or None."""
    needs = ANALYSIS + (LANGUAGE_SERVER if command == "lsp" else ())
    lacking = missing(needs)
    if not lacking:
        return None
    return (f"missing Python package{'s' if len(lacking) > 1 else ''} {', '.join(lacking)}, which "
            f"`shapehint {command}` needs: pip install {' '.join(lacking)}")
