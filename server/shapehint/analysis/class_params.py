"""A parameter annotated with the classes it may be (`block: type[Union[BasicBlock, Bottleneck]]`,
`Type[Block]`): a CNN assembled from the block class it is given (torchvision's ResNet builds
its stages with `block(...)` and sizes its head with `512 * block.expansion`). Without a
constructing context such a parameter was an opaque value, so every stage it built was unknown.

In its own analysis the parameter is one of the annotated classes or of their subclasses that
the analysed code defines (`type[X]` admits subclasses): a ChoiceV (choices.py), so a call builds
each option and joins what they give, an attribute is what every option holds, and where the
options disagree (`expansion` 1 or 4) nothing is claimed. A member that is no class of the
analysed code (another library's, `nn.Module`) or too many options leave the parameter as it was:
unknown, never a guess."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.values import Value
from .annotations import union_members, unstring
from .choices import choice_of
from .objects import ClassObj

_TYPE_NAMES = {"type", "Type"}


def class_param(node: ast.AST, resolve: Callable[[ast.AST], Value], classes: list) -> Optional[Value]:
    """The value of a parameter annotated `node` when that is `type[...]` of classes the analysed
    code defines (`classes`: all it defines, for their subclasses); else None."""
    node = unstring(node)
    if not isinstance(node, ast.Subscript) or not _is_type(node.value, resolve):
        return None
    members = union_members(node.slice, resolve)
    members = members if members is not None else [unstring(node.slice)]
    if not members or any(m is None for m in members):
        return None
    options: list = []
    for m in members:
        cls = resolve(m)
        if not isinstance(cls, ClassObj):
            return None  # `None`, another library's class: the options are not all known
        for c in [cls] + _subclasses(cls, classes):
            if not any(c is o for o in options):
                options.append(c)
    return choice_of(options)


def _is_type(node: ast.AST, resolve) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name not in _TYPE_NAMES:
        return False
    return not isinstance(resolve(node), ClassObj)  # (a class of the file's own named `Type` is not typing's)


def _subclasses(cls: ClassObj, classes: list) -> list:
    """The classes among `classes` that derive from `cls`, at any depth."""
    out: list = []

    def derives(c: ClassObj, seen: set) -> bool:
        for b in c.bases:
            if b is cls or isinstance(b, ClassObj) and id(b) not in seen and derives(b, seen | {id(b)}):
                return True
        return False

    for c in classes:
        if isinstance(c, ClassObj) and c is not cls and derives(c, set()):
            out.append(c)
    return out
