"""Attributes a configuration built at its class's defaults surely lacks (docs/analysis.md, "A
configuration's defaults"; issue 28).

A model reads an optional setting with a default (`getattr(config, "ratio", 1.0)`,
`hasattr(config, "scaling")`): the class analysed on its own holds a configuration
that any keyword may have given the attribute, so the value is open (an unknown float: the rotary
embedding's width unknown). In the defaults construction context the configuration is one whose
build passes only keywords its classes name (devicerun/builders.py), so an attribute that none of
its constructors may write and no class of it defines or mentions (config_bases.present_names)
is absent: `getattr` gives the default, `hasattr` False. What the model's own code writes on it is
in its attributes; a `setattr` of a name not known opens it again (unnamed_modules.UNKNOWN_ATTRS),
and a call cut off makes what it may store present (cut_writes.forget)."""
from __future__ import annotations

from .objects import InstanceObj
from .unnamed_modules import UNKNOWN_ATTRS


def absent(obj, name: str) -> bool:
    return isinstance(obj, InstanceObj) and obj.closed is not None and name not in obj.closed \
        and name not in obj.attrs and UNKNOWN_ATTRS not in obj.attrs and obj.cls.lookup(name) is None
