"""A constructor's sequence of sizes assumed as long as its default (docs/analysis.md, "A flag's
default").

`block_config: Tuple[int, ...] = (6, 12, 24, 16)` iterated by `__init__` (`for i, n in
enumerate(block_config)`) builds one stage a pass; the class on its own holds a sequence of
unknown length there, so the number of stages, and every channel and spatial size after them,
is unknown (a stage may not exist at all: the input joins the output). The construction context
at the defaults (flag_defaults.py) keeps sizes symbolic, so it holds that sequence open too. For
each such parameter (its default a tuple or list of int literals, its length read by the
constructor's own loops or `len`, its annotation no fixed-length tuple, which already gives the
length), that construction runs once more with the parameter a sequence of the default's length
whose items are sizes named `p[0]`, `p[1]`, ... (as `Tuple[int, int]` names them, generic.py),
labelled `CLASS.__init__:LINE assuming len(p) == N`; it claims shapes only for builds leaving
every flag at its default and passing for `p` a literal of N ints from 1 up, or nothing
(devicerun/builders.py).

A parameter without a default hinted as ints of any number (`layers: Tuple[int, ...]`, a block
count per stage) that the constructor reads is a sequence of unknown length in every context,
so a stage a helper builds per item (`zip(channels, layers)`) may be missing and one built
`for i in range(n)` may be empty: the input joins each stage's output. Where the constructor's
sequence defaults whose length it reads all have one length (`channels=(64, 128, 256, 512)`,
`len(channels)`), it is assumed that long first (a build must pass it, so its context matches
any build of that length). In a context
assuming a length, its items are ints from 1 up, as the builds it claims for pass them: a loop
over `range(p[i])` runs at least once there (first_pass.py, `counted`). A string parameter's
literal context (param_literals.py) runs once more with the required sequence that long too
(`both`): a build passing `stem_type='deep'` passes the sequence as well.

Pure `ast`: the analysis (flag_defaults.py) and devicerun/builders.py read the same parameters.
"""
from __future__ import annotations

import ast
from ..frontend.params import defaulted

MAX_PARAM_LENGTHS = 1  # assumptions per class (each runs the whole model again)
MAX_LENGTH = 8  # items named in the label's sequence (a longer default is no stage list)
PREFIX = " assuming "  # (param_literals.PREFIX: the referee reads the labels alike)
AND = " and "  # (two assumptions of one context: `both`)
_SEQUENCE_CALLS = {"enumerate", "zip", "reversed", "list", "tuple", "range", "len", "sum"}


def _int_sequence_defaults(init: ast.FunctionDef) -> dict:
    """`init`'s parameters whose default is a tuple or list of int literals (not bools), and whose
    annotation is no fixed-length tuple: name -> the default's length."""
    pairs = defaulted(init)
    return {p.arg: len(d.elts) for p, d in pairs
            if isinstance(d, (ast.Tuple, ast.List)) and 0 < len(d.elts) <= MAX_LENGTH
            and all(isinstance(e, ast.Constant) and type(e.value) is int for e in d.elts)
            and not _fixed_tuple(p.annotation)}


def _open_int_sequence(ann) -> bool:
    """`Tuple[int, ...]`, `List[int]`, `Sequence[int]` (any spelling of those bases): ints of any
    number."""
    if not isinstance(ann, ast.Subscript):
        return False
    base = ann.value
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    ints = isinstance(items[0], ast.Name) and items[0].id == "int"
    if name in ("Tuple", "tuple"):
        return ints and len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis
    return name in ("List", "list", "Sequence") and ints and len(items) == 1


def _required_sequences(init: ast.FunctionDef, lengths: set) -> dict:
    """`init`'s parameters without a default hinted as ints of any number and read by its body:
    name -> the one length of the sequence defaults whose length it reads (`lengths`), none
    where they differ."""
    if len(lengths) != 1:
        return {}
    a = init.args
    pos = a.posonlyargs + a.args
    required = pos[1:len(pos) - len(a.defaults)] + [p for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    read = {n.id for st in init.body for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    n = next(iter(lengths))
    return {p.arg: n for p in required if _open_int_sequence(p.annotation) and p.arg in read}


def _fixed_tuple(ann) -> bool:
    """`Tuple[int, int]` / `tuple[int, int, int, int]` (not `Tuple[int, ...]`)."""
    if not isinstance(ann, ast.Subscript):
        return False
    base = ann.value
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    return name in ("Tuple", "tuple") and not any(
        isinstance(e, ast.Constant) and e.value is Ellipsis for e in items)


def _reads_length(node, params: dict) -> set:
    """The parameters whose length `node` reads: iterated by a `for` or comprehension (directly or
    through `enumerate`, `zip`, ...), or given to `len`."""
    found = set()

    def of(expr):
        if isinstance(expr, ast.Name) and expr.id in params:
            found.add(expr.id)
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in _SEQUENCE_CALLS:
            for arg in expr.args:
                of(arg)
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        of(node.iter)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        for arg in node.args:
            of(arg)
    return found


def param_lengths(init: ast.FunctionDef) -> list:
    """[(param, length)] for the parameters of `init` without a default that are ints of any
    number (`_required_sequences`), then those whose default is a sequence of int literals and
    whose length `init`'s own body reads (a nested function's reads are its own), in source
    order, at most MAX_PARAM_LENGTHS."""
    params = _int_sequence_defaults(init)
    if not params:
        return []
    read: list = []
    todo = list(init.body)
    while todo:
        n = todo.pop(0)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        for p in sorted(_reads_length(n, params)):
            if p not in read:
                read.append(p)
        todo[:0] = list(ast.iter_child_nodes(n))
    required = list(_required_sequences(init, {params[p] for p in read}).items())
    return (required + [(p, params[p]) for p in read])[:MAX_PARAM_LENGTHS]


def passes_length(value, length: int) -> bool:
    """Whether a build's argument `value` is a tuple or list literal of `length` ints from 1 up
    (the sizes the context's symbols, each at least 1, stand for)."""
    return isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == length and all(
        isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 1 for e in value.elts)


def required_length(init: ast.FunctionDef):
    """(param, length) of the sequence without a default that `param_lengths` assumes, or None."""
    got = param_lengths(init)
    return got[0] if got and got[0][0] not in {p.arg for p, _ in defaulted(init)} else None


def both(literal: str, param: str, length: int) -> str:
    """A string literal's label (param_literals.label) that assumes the required sequence's
    length too: the build passes that sequence as well (`CLASS.__init__ assuming stem_type ==
    'deep' and len(layers) == 4`)."""
    return f"{literal}{AND}len({param}) == {length}"


def label(base: str, param: str, length: int) -> str:
    return f"{base}{PREFIX}len({param}) == {length}"
