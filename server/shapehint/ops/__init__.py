"""Operator rules: the registry (registry.py) and the rule families that fill it (families/)."""
from . import registry


def _register_families() -> None:
    from . import families  # noqa: F401  (importing the package registers every rule)


# The families are imported on the first lookup, not here: importing a helper of ops (context,
# dtypes) stays cheap, and the registry needs no import of the families that import it.
registry.set_filler(_register_families)
