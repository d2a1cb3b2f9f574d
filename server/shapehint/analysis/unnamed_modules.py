"""A module read by a name it was registered under only where the name was not known (issue 27).

A model may build its stages in a helper that names them in a loop of unknown count
(`(f'layer{i + 1}', nn.Sequential(*blocks))` for each of `zip(channels, layers)`) and register
them with `self.add_module(*stage)`; `forward` then reads `self.layer1`. The name is in no
attribute the analysis knows, so the read was an operation of the module (a `BoundOp`) and the
call unknown. A module that runs reads `self.layer1` from what was registered, and the only
registration the name can come from is one whose name was not known: every module registered at
that one site joined (builtins.add_module keeps it under objects.UNKNOWN_MODULES, the loop's
fixpoint joining what each pass registered, as loop_counts.unknown_count reads it). So the read
is that join, never one stage's layers for another's.

Only where nothing else can hold the name: one such site, no attribute written under a name not
known any other way (`setattr`, `register_buffer`: `write` marks them), no class attribute and
no write of that name anywhere in the class's source (a method not run, `self.head = ...` in
`reset_classifier`), and not an attribute `nn.Module` has itself (`self.training`).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import ModuleV, NoneV, StrV, Value
from .objects import UNKNOWN_MODULES, ChoiceV, InstanceObj

UNKNOWN_ATTRS = "<attributes not known>"  # a `setattr`/`register_*` of a name not known was run

# what `torch.nn.Module` provides itself: never a registered module
_MODULE_OWN = frozenset("""T_destination add_module apply bfloat16 buffers call_super_init children compile cpu
cuda double dump_patches eval extra_repr float forward get_buffer get_extra_state get_parameter
get_submodule half ipu load_state_dict modules mtia named_buffers named_children named_modules
named_parameters parameters register_backward_hook register_buffer register_forward_hook
register_forward_pre_hook register_full_backward_hook register_full_backward_pre_hook
register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module
register_parameter register_state_dict_post_hook register_state_dict_pre_hook requires_grad_
set_extra_state set_submodule share_memory state_dict to to_empty train training type xpu
zero_grad""".split())


def write(inst: InstanceObj, name: Value, value: Value) -> None:
    """`setattr(inst, name, value)` (or a `register_*` of it): a name not known is remembered as
    such, so that no read takes a module registered elsewhere for it."""
    if isinstance(name, StrV) and name.value:
        inst.attrs[name.value] = value
    else:
        inst.attrs[UNKNOWN_ATTRS] = NoneV()


def read(inst: InstanceObj, name: str) -> Optional[Value]:
    """What `inst.name` is when `name` was registered only under a name not known; None when the
    name may come from elsewhere."""
    sites = [k for k in inst.attrs if isinstance(k, str) and k.startswith(UNKNOWN_MODULES + " ")]
    layer = inst.attrs.get(UNKNOWN_MODULES)
    if len(sites) != 1 or UNKNOWN_ATTRS in inst.attrs or None in inst.attrs or name.startswith("_") \
            or name in _MODULE_OWN or not _modules(layer) or not _plain_module(inst.cls) \
            or _written(inst.cls, name):
        return None
    return layer


def _modules(v: Value) -> bool:
    if isinstance(v, ChoiceV):
        return all(_modules(o) for o in v.options)
    return isinstance(v, ModuleV) or isinstance(v, InstanceObj) and v.cls.is_module()


def _written(cls, name: str) -> bool:
    """Whether the source of `cls` or a base of it in the workspace writes `name` as an attribute
    (`self.head = ...`) or registers it by that constant (`setattr(self, 'head', ...)`,
    `add_module('head', ...)`): a write in a method not run may put another module there. A
    tuple of the names read back (`layer_names = ('layer1', ...)` for `getattr`) writes nothing."""
    # (walked only where such a read happens: a module that registered some names not known)
    return any(isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, (ast.Store, ast.Del))
               or isinstance(n, ast.Call) and _registered_name(n) == name
               for c in _classes(cls) for n in ast.walk(c.node))


def _registered_name(call: ast.Call):
    f = call.func
    fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    at = 1 if fname in ("setattr", "delattr") else 0 if fname in _REGISTERS else None
    arg = call.args[at] if at is not None and len(call.args) > at else None
    return arg.value if isinstance(arg, ast.Constant) else None


_REGISTERS = ("add_module", "register_module", "register_buffer", "register_parameter")


def _plain_module(cls) -> bool:
    """Whether `cls` derives from `nn.Module` alone: a container's own methods (`ModuleDict.items`,
    `Sequential.append`) are no registered module, and only `nn.Module`'s are listed."""
    ext = [b for c in _classes(cls) for b in getattr(c, "bases", []) if not hasattr(b, "node")]
    return all(getattr(b, "path", None) in _MODULE_PATHS for b in ext)


_MODULE_PATHS = ("torch.nn.Module", "torch.nn.modules.module.Module")


def _classes(cls) -> list:
    out, todo = [], [cls]
    while todo:
        c = todo.pop()
        if getattr(c, "node", None) is not None and all(c is not o for o in out):
            out.append(c)
            todo.extend(b for b in getattr(c, "bases", []) if hasattr(b, "node"))
    return out
