"""A configuration attribute assumed equal to the string literal that guards a registry lookup
(docs/analysis.md, "A configuration string's literal").

A model may pick one of its functions by a configuration string, falling back to a table others
may extend: `fn = own_fn; if self.config.impl != "plain": fn = TABLE[self.config.impl]`. The
table is open (a `register` classmethod, lookup_writers.py), so on the arm that reads it the
function, and every shape after its call, is unknown; the class analysed on its own holds the
string unknown, and a base constructor the analysis cut off may rewrite it (cut_writes.py), so
the test is never decided and the lines after it are joins with nothing.

For each literal that so guards a lookup keyed by the same attribute (the `!=` test's body, or the
`==` test's `else`), the flag defaults' construction (flag_defaults.py) is run once more, with one
assumption stated after the construction: the configuration the class was built with holds that
literal, stored as the code would store it (`config.impl = "plain"`, through a property's setter
where the class has one) and read back as that literal, else no context. Its label says so
(`CLASS.__init__:LINE assuming config.impl == 'plain'`, hover lists it with its shapes), and it
claims shapes only for builds that pass the configuration that literal under the keyword its
classes store in that attribute (devicerun/builders.py) and whose built model holds it (the
referee reads the attribute of the model it built, bench/realmodels/execute.py).

A class may instead pick a part from a table of the file keyed by the attribute, with no test
(`self.attention = ATTENTIONS[config.impl](config)`, `ATTENTIONS = {"plain": ..., "fast": ...}`):
the table's keys are values the configuration can hold, and a build passing one matched no
construction context (a class without flags has none, and the keyword is not at its default), so
the class's string and bool defaults were undecided on every line. The table's first key is
assumed as a guarding literal is (after the guarding ones, within MAX_LITERALS). The assumption is
stated after the construction, so the part the construction picked is still any entry: it decides
what the model's run reads of the attribute, and binds the builds passing that key. Nothing is
assumed where the file only compares the attribute with literals.

Pure `ast`: the analysis (flag_defaults.py) and devicerun/builders.py read the same guards here.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk


MAX_LITERALS = 2  # assumptions per class (each runs the whole model again)
# the steps all of one analysis's literal contexts may take (flag_defaults.py): each runs the
# whole model again, and a file of a dozen heads over one model (transformers' `...For...`
# classes) ran it a dozen times more; its first classes (the model, its parts) are run first
LITERAL_STEPS = 80_000
# the most one of them may take: a context cut off is no claim, so one big model (a file's whole
# multimodal model) spending the lot gave nothing and left the file's later models none
CONTEXT_STEPS = LITERAL_STEPS // 2
PREFIX = " assuming "  # (between a construction context's `QUALNAME:LINE` and its assumption)
PARAM = "config"  # (config_defaults.PARAM: this module is pure `ast`, loaded by path by builders.py)


def _config_attr(node) -> Optional[str]:
    """`A` of `config.A` or `X.config.A` (the configuration the class is built with)."""
    if not isinstance(node, ast.Attribute):
        return None
    base = node.value
    if isinstance(base, ast.Name) and base.id == PARAM or isinstance(base, ast.Attribute) and base.attr == PARAM:
        return node.attr
    return None


def _literal_test(test) -> Optional[tuple]:
    """(attr, literal, whether the `if`'s body is the unequal arm) of `config.A != "L"` / `== "L"`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant):
        left, right = right, left
    attr = _config_attr(left)
    if attr is None or not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
        return None
    return attr, right.value, isinstance(test.ops[0], ast.NotEq)


def _looks_up(stmts: list, attr: str) -> bool:
    """Whether `stmts` subscript something with the configuration's `attr` (`TABLE[config.A]`)."""
    return any(isinstance(n, ast.Subscript) and _config_attr(n.slice) == attr
               for st in stmts for n in walk(st))


def guarded_literals(tree: ast.Module) -> list:
    """[(attr, literal)] of the file (its classes and module-level assignments): each literal that
    guards a lookup keyed by `config.attr`, then the first key of each table the classes read
    keyed by it."""
    out = []
    for n in walk(tree):
        if not isinstance(n, ast.If):
            continue
        found = _literal_test(n.test)
        if found is None:
            continue
        attr, lit, body_unequal = found
        if _looks_up(n.body if body_unequal else n.orelse, attr) and (attr, lit) not in out:
            out.append((attr, lit))
    tables = _first_keys(tree.body)
    for n in walk(tree):
        attr = _config_attr(n.slice) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) else None
        if attr is not None and n.value.id in tables and (attr, tables[n.value.id]) not in out:
            out.append((attr, tables[n.value.id]))
    return out[:MAX_LITERALS]


def _first_keys(stmts: list) -> dict:
    """NAME -> the first key of each module-level `NAME = {"key": Impl, ...}`, its keys all
    strings and its values all names (the implementations a class picks one of, not instances).

    Read with `config.A` (`self.attention = TABLE[config.impl](config)`), its keys are the values
    the configuration can hold (any other raises): assuming one is assuming a value the class
    takes. Only the first, as each assumption runs the whole model again; and no table of made
    values (`{"gelu": nn.GELU()}`): a class reading only such a one gets no context of its own, as
    one for every class taking a configuration would run each model again."""
    out = {}
    for st in stmts:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and isinstance(st.value, ast.Dict) and st.value.keys and all(
                    isinstance(k, ast.Constant) and isinstance(k.value, str) for k in st.value.keys) \
                and all(isinstance(v, ast.Name) for v in st.value.values):
            out[st.targets[0].id] = st.value.keys[0].value
    return out


_RECENT: dict = {}  # ids of a module's class nodes -> (those nodes, their guarded literals)
MAX_RECENT = 8


def guarded_in(classes: list) -> list:
    """`guarded_literals` of the module made of `classes` (its `ast.ClassDef` nodes and its
    module-level assignments), remembered for those very nodes: the analysis asks once per
    configuration-taking class of the module (a walk of every class each time), always of the
    whole list, so a list taken while the module's body still ran (fewer classes) is another key."""
    key = tuple(map(id, classes))
    hit = _RECENT.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], classes)):
        return list(hit[1])
    out = guarded_literals(ast.Module(body=list(classes), type_ignores=[]))
    if len(_RECENT) >= MAX_RECENT:
        del _RECENT[next(iter(_RECENT))]
    _RECENT[key] = (tuple(classes), out)  # (the nodes held: their ids are not reused meanwhile)
    return list(out)


def label(base: str, attr: str, lit: str) -> str:
    return f"{base}{PREFIX}{PARAM}.{attr} == {lit!r}"


def builds_any(cls_node, names: set) -> bool:
    """Whether the class's code names one of the classes `names` (a head building a model whose
    context was cut off: its own context, running that model again, would be cut off too)."""
    return bool(names) and any(isinstance(n, ast.Name) and n.id in names for n in walk(cls_node))
