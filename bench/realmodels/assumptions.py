"""Whether a construction context's assumption holds for the model the referee built.

The server labels a construction context that holds only for some builds with what it assumes
(`CLASS.__init__ assuming config.impl == 'plain'`, analysis/literal_contexts.py;
`CLASS.__init__ assuming stem_type == 'deep'`, analysis/param_literals.py;
`CLASS.__init__ assuming len(layers) == 4`, analysis/param_lengths.py; both at once, joined by
` and `: param_lengths.both). `builders` says which
such contexts the build runs by the server's own reading of the build; the referee counts one
only where it checks the assumption itself against what it knows of the build: the built
model's configuration strings (execute.py), and the literals the build expression passes the
class by keyword, or by position where the file's own `__init__` of the class names the position.
An assumption of any other form, or about a class the build expression does not call itself
(one a factory builds), is not confirmed: the judge takes the best context, so an unchecked one
could mask a wrong claim.
"""
from __future__ import annotations

import ast
import re

PREFIX = " assuming "
AND = " and "  # several assumptions of one context (param_lengths.both), each checked
_CONFIG = re.compile(r"^config\.(?P<attr>\w+) == '(?P<lit>[^']*)'$")
_PARAM = re.compile(r"^(?P<name>[A-Za-z_]\w*) == (?:'(?P<text>[^']*)'|(?P<int>\d+))$")
_LENGTH = re.compile(r"^len\((?P<name>[A-Za-z_]\w*)\) == (?P<n>\d+)$")


def holds(name: str, config_strings: dict | None, build: str = "", source: str = "") -> bool:
    """Whether context `name` (`parse_context`'s first part) is one the build is known to run:
    one without an assumption always; one with an assumption only when the assumption is checked
    true (module docstring)."""
    if PREFIX not in name:
        return True
    qual, assumed = name.split(PREFIX, 1)
    parts = assumed.split(AND)
    if len(parts) > 1:  # (`stem_type == 'deep' and len(layers) == 4`: each checked on its own)
        return all(holds(qual + PREFIX + part, config_strings, build, source) for part in parts)
    m = _CONFIG.match(assumed)
    if m:
        return (config_strings or {}).get(m.group("attr")) == m.group("lit")
    if not qual.endswith(".__init__"):
        return False
    cls = qual[:-len(".__init__")].rsplit(".", 1)[-1]
    m = _PARAM.match(assumed)
    if m:
        want = m.group("text") if m.group("text") is not None else int(m.group("int"))
        return _every_call(build, source, cls, m.group("name"), lambda v: _literal(v, want))
    m = _LENGTH.match(assumed)
    if m:
        n = int(m.group("n"))
        return _every_call(build, source, cls, m.group("name"),
                           lambda v: isinstance(v, (ast.List, ast.Tuple)) and len(v.elts) == n
                           and not any(isinstance(e, ast.Starred) for e in v.elts))
    return False


def _literal(node, want) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is type(want) and node.value == want


def _every_call(build: str, source: str, cls: str, param: str, test) -> bool:
    """Whether the build expression calls `cls` at least once, and every such call passes `param`
    a value `test` accepts."""
    try:
        tree = ast.parse(build or "", mode="eval")
    except SyntaxError:
        return False
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and _names(c.func, cls)]
    return bool(calls) and all(test(_passed(c, param, source, cls)) for c in calls)


def _names(func, cls: str) -> bool:
    return (isinstance(func, ast.Name) and func.id == cls) or (isinstance(func, ast.Attribute) and func.attr == cls)


def _passed(call: ast.Call, param: str, source: str, cls: str):
    """The expression `call` passes `param`, else None (not passed, or not knowable: `*args`,
    `**kwargs`, or a position without the class's own `__init__` in `source`)."""
    for k in call.keywords:
        if k.arg == param:
            return k.value
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if not call.args:
        return None
    init = _own_init(source, cls)
    if init is None:
        return None
    pos = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    return dict(zip(pos, call.args)).get(param)


def _own_init(source: str, cls: str):
    try:
        tree = ast.parse(source or "")
    except SyntaxError:
        return None
    defs = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    if not defs:  # (the last definition is the class the module's name holds)
        return None
    return next((f for f in reversed(defs[-1].body) if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
