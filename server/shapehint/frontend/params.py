"""The parameters of a `def` that have a default, each with its default expression.

Pure `ast`, imported by the context modules (analysis/config_bases.py, flag_defaults.py,
param_lengths.py, ...) and by devicerun/builders.py, which reads the same defaults to match a
build with its context (it loads these files by path, as one package: builders.py).
"""
from __future__ import annotations

import ast


def defaulted(fn: ast.FunctionDef) -> list:
    """[(ast.arg, default expression)] of `fn`'s defaulted parameters, positional ones first; a
    keyword-only parameter without a default comes with None (callers test the default's kind)."""
    a = fn.args
    pos = a.posonlyargs + a.args
    return list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
