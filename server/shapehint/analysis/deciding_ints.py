"""Int defaults from 1 up that decide a branch of the constructor (docs/analysis.md, "A flag's default").

The construction with the flags at their defaults (flag_defaults.py) holds an int default from 1
up a symbol, as a build passes its own sizes. One that the constructor compares is no size:
`output_stride: int = 32` read in `curr_stride >= output_stride`, or `patch_size: int = 4` that
becomes the stride compared with 2 (`stem_stride = patch_size`, `curr_stride = stem_stride`), leaves
each such branch undecided there, and the layers its arms build join to unknown sizes in every line
after. Those ints are decided in that construction too, and a build is in it only when it leaves
them at their defaults (devicerun/builders.py loads this module by path: one definition of which).

An int is deciding when its parameter, or a name the constructor assigns from an expression that
reads it (transitively; a loop's target is no such name, so `for i in range(depth)` then `i > 0`
keeps `depth` a size), is read by a comparison in the constructor's own body. Neither a check of the
arguments nor a comparison with 0 or 1 counts (`_deciding_comparisons`).
Standard library only: builders.py runs standalone.
"""
from __future__ import annotations

import ast
import os

from ..frontend.params import defaulted


def _names(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _bound(t) -> list:
    """The names a target binds (`a`, `a, (b, *c)`); `self.x` and `d[k]` bind none."""
    if isinstance(t, ast.Name):
        return [t]
    if isinstance(t, ast.Starred):
        return _bound(t.value)
    return [n for e in t.elts for n in _bound(e)] if isinstance(t, (ast.Tuple, ast.List)) else []


def _targets(st) -> list:
    if isinstance(st, ast.Assign):
        return [n for t in st.targets for n in _bound(t)]
    return _bound(st.target) if isinstance(st, (ast.AugAssign, ast.AnnAssign)) else []


def deciding_ints(init: ast.FunctionDef) -> dict:
    """`init`'s parameters whose default is an int from 1 up and that a comparison in its body
    reads, directly or through the names assigned from them: name -> the default."""
    pairs = defaulted(init)
    ints = {p.arg: d.value for p, d in pairs
            if isinstance(d, ast.Constant) and type(d.value) is int and d.value >= 1}
    if not ints:
        return {}
    reads = {p: {p} for p in ints}  # name -> the int parameters its value was computed from
    stmts = [st for st in ast.walk(ast.Module(body=init.body, type_ignores=[])) if _targets(st)]
    changed = True
    while changed:
        changed = False
        for st in stmts:
            src = set().union(*[reads.get(n, set()) for n in _names(st.value)]) if st.value is not None else set()
            for t in _targets(st):
                if t.id in ints or not src - reads.get(t.id, set()):
                    continue
                reads[t.id] = reads.get(t.id, set()) | src
                changed = True
    compared = set()
    for node in _deciding_comparisons(init):
        for n in _names(node):
            compared |= reads.get(n, set())
    return {k: v for k, v in ints.items() if k in compared}


def _checks(init: ast.FunctionDef) -> set:
    """The comparisons that only check the arguments (`assert len(heads) == depth`, `if a != b:
    raise ...`): sizes agreeing decide no layer. A membership in a literal of constants
    (`assert output_stride in (8, 16, 32)`) is a choice of value, not a check."""
    out = set()
    for st in ast.walk(ast.Module(body=init.body, type_ignores=[])):
        if isinstance(st, ast.Assert) or isinstance(st, ast.If) and len(st.body) == 1 \
                and isinstance(st.body[0], ast.Raise) and not st.orelse:
            out |= {id(c) for c in ast.walk(st.test) if isinstance(c, ast.Compare) and not _choice(c)}
    return out


def _choice(c: ast.Compare) -> bool:
    return len(c.ops) == 1 and isinstance(c.ops[0], (ast.In, ast.NotIn)) \
        and isinstance(c.comparators[0], (ast.Tuple, ast.List, ast.Set)) \
        and all(isinstance(e, ast.Constant) for e in c.comparators[0].elts)


def _deciding_comparisons(init: ast.FunctionDef) -> list:
    """The comparisons of `init`'s body that may decide what it builds: not a check, not an
    identity (`heads is None`: no int's value decides it), and not one with 0 or 1 (`if
    num_classes > 0`: the symbol is at least 1, defaults.symbol_noting, which decides it already,
    and the builds that pass their own `num_classes` stay in the context)."""
    checks = _checks(init)
    return [c for c in ast.walk(ast.Module(body=init.body, type_ignores=[]))
            if isinstance(c, ast.Compare) and id(c) not in checks
            and not any(isinstance(op, (ast.Is, ast.IsNot)) for op in c.ops) and not any(
                isinstance(o, ast.Constant) and type(o.value) is int and o.value in (0, 1)
                for o in [c.left, *c.comparators])]


def handed_on(init: ast.FunctionDef, resolve) -> dict:
    """`init`'s int parameters from 1 up that it hands, by keyword or position, to a class whose
    methods compare what its `__init__` got for that parameter (`Builder(output_stride=
    output_stride)`, compared as `self.output_stride` in the builder's `__call__`): as deciding as
    one `init` compares itself. `resolve(name)` is the class node a called name stands for, or None
    (devicerun/builders.py reads it from the imported module's file, the analysis from the
    function's globals: one rule)."""
    ints = _int_defaults(init)
    if not ints:
        return {}
    reads = _flow(init, lambda e: {n for n in _names(e) if n in ints}, keep=set(ints))
    out = {}
    for call in ast.walk(ast.Module(body=init.body, type_ignores=[])):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        cls = resolve(call.func.id)
        if not isinstance(cls, ast.ClassDef):
            continue
        compared, params = compared_params(cls)
        given = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg]
        for name, v in given:
            if name in compared and not isinstance(v, ast.Starred):
                for n in _names(v):
                    out.update({p: ints[p] for p in reads.get(n, set())})
    return out


def _int_defaults(func: ast.FunctionDef) -> dict:
    pairs = defaulted(func)
    return {p.arg: d.value for p, d in pairs if isinstance(d, ast.Constant) and type(d.value) is int and d.value >= 1}


def _flow(func: ast.FunctionDef, sources, keep: set = frozenset()) -> dict:
    """name -> the keys the value a name of `func`'s body holds was computed from, `sources(expr)`
    an expression's own keys (a name in `keep`, a parameter, keeps only its own)."""
    reads: dict = {}
    stmts = [st for st in ast.walk(ast.Module(body=func.body, type_ignores=[])) if _targets(st)]
    for k in keep:
        reads[k] = {k}
    changed = True
    while changed:
        changed = False
        for st in stmts:
            if st.value is None:
                continue
            src = set(sources(st.value)).union(*[reads.get(n, set()) for n in _names(st.value)])
            for t in _targets(st):
                if t.id in keep or not src - reads.get(t.id, set()):
                    continue
                reads[t.id] = reads.get(t.id, set()) | src
                changed = True
    return reads


def compared_params(cls: ast.ClassDef) -> tuple:
    """(the parameters of `cls`'s own `__init__` that a deciding comparison of the class reads:
    in `__init__`, or, stored as they are as `self.NAME`, in any of its methods; `__init__`'s
    parameters after `self` in order). A class without its own `__init__` compares none."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None or not init.args.args:
        return set(), []
    a = init.args
    params = [p.arg for p in (a.posonlyargs + a.args)[1:] + a.kwonlyargs]
    me = (a.posonlyargs + a.args)[0].arg
    reads = _flow(init, lambda e: set(), keep=set(params))
    stored: dict = {}  # attribute -> the parameter stored in it as it was given
    for st in ast.walk(ast.Module(body=init.body, type_ignores=[])):
        # (only `self.NAME = param`: a layer made of several parameters, compared by one of its
        # attributes, `pool_type != self.global_pool.pool_type`, decides nothing of the others)
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Name) and st.value.id in params:
            for t in st.targets if isinstance(st, ast.Assign) else [st.target]:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                    stored[t.attr] = stored.get(t.attr, set()) | {st.value.id}
    compared = set()
    for node in _deciding_comparisons(init):
        for n in _names(node):
            compared |= reads.get(n, set())
    for m in cls.body:
        if not isinstance(m, ast.FunctionDef) or not (m.args.posonlyargs + m.args.args):
            continue
        own = (m.args.posonlyargs + m.args.args)[0].arg

        def attrs(e, own=own):
            return {x.attr for x in ast.walk(e) if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name)
                    and x.value.id == own and x.attr in stored}
        flow = _flow(m, attrs)
        for node in _deciding_comparisons(m):
            for x in attrs(node) | set().union(*[flow.get(n, set()) for n in _names(node)]):
                compared |= stored[x]
    return compared & set(params), params


def import_target(tree: ast.Module, name: str, path: str):
    """The file the first top-level `from M import name` (not renamed) of the module `tree` at
    `path` names, M a module beside it or under the directory above its outermost package; None
    if there is none. Where the analysis and devicerun/builders.py find an imported class (one rule:
    a class a package's `__init__` re-exports is found by neither)."""
    imp = next((n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module
                and any(a.name == name and a.asname is None for a in n.names)), None)
    if imp is None or not path:
        return None
    here = os.path.dirname(os.path.abspath(path))
    if imp.level:
        root = here
        for _ in range(imp.level - 1):
            root = os.path.dirname(root)
    else:
        root = here  # (the directory above the outermost package)
        while os.path.exists(os.path.join(root, "__init__.py")):
            root = os.path.dirname(root)
    return os.path.join(root, *imp.module.split(".")) + ".py"
