"""Construction contexts: a model is analysed with the values its construction actually used.

A function that returns a model it built (a factory: `def net18(**kw): return Net(Block, [2, 2],
**kw)`, or one that assembles the layers and passes them in) is a context in which the model's
`forward` runs: the instance it returns — its own constructor arguments, its Sequentials built
in loops, its block classes — is `self`, and the tensor inputs are those of `forward`'s own
analysis (unknown-rank tensors in its parameters' names, `x.shape[0]`), so what each factory's
model gives joins with the others and with the generic analysis line by line (sink.finish_values).
Without such a context a class whose constructor arguments have no default (`block`, `layers`)
leaves everything its assembled stages compute unknown: missing, never a guess. The blocks the
model holds run there too (`_parts`), each on inputs in its own names: the model's forward hands
them tensors in the model's input names, which are not theirs.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Callable, Optional

from .construction_records import return_span as _return_span
from .frames import BuiltContext, Frame, deep_context, own_run
from ..shapes.values import ModuleV, TensorV
from .callmemo import alike
from . import costs
from .layers import CONTAINERS
from .objects import ChoiceV, FuncObj, InstanceObj, OpenChoiceV
from .held_state import snapshot
from .entry_state import at_entry
from .own_methods import run_own_methods, sizes_at_call

MAX_CONTEXTS = 16  # construction contexts run per class (torchvision's efficientnet.py has 12 factories)
MAX_PARTS = 64  # groups of parts of one model run in its construction context (`_parts`)


def run_built_models(it, f: FuncObj, fr: Frame, param_value: Callable) -> None:
    """Run `forward` of each model instance `f` returns (f: a plain function's generic analysis,
    whose frame `fr` has run; `param_value`: the engine's parameter values of a generic analysis),
    then that of each of its parts whose class this file defines (`_parts`)."""
    seen = set()
    # (each model one of several the factory may return — a choice's known options, another
    # library's wrapper of it not followed — is a claim about that model only)
    for v in [o for r in fr.returns for o in (r.options if isinstance(r, (ChoiceV, OpenChoiceV)) else (r,))]:
        if not isinstance(v, InstanceObj) or id(v) in seen or not v.cls.callable_like_a_module():
            continue
        seen.add(id(v))
        runs = it.built_runs.get(v.cls, 0)
        if runs >= MAX_CONTEXTS:  # (a file of a hundred factories of one class: enough to show)
            continue
        it.built_runs[v.cls] = runs + 1
        span = _return_span(f.node)
        label = BuiltContext(f"{f.qualname}:{span.line}")
        run_in_context(it, v, fr, label, span, param_value)


def run_in_context(it, v: InstanceObj, fr: Frame, label: BuiltContext, span, param_value: Callable) -> None:
    """`v.forward`, then that of each of its parts (`_parts`), in the construction context `label`."""
    with costs.context_share(it):
        constructed = snapshot(v)
        ran = _run_forward(it, v, fr, label, span, param_value)
    if ran:
        for part in _parts(it, v):
            # (an int the model's run rewrote in it: its value when called, entry_state.py)
            entry = at_entry(it, part, constructed, fr.facts)
            # (facts of its own: the inputs of every run of a class are the same symbols,
            # `x.shape[1]`, and one block's channels are not the next one's; a share of imported
            # calls of its own too, as the model's: a decoder's cache code spent the model's
            # share, and a part's config property read after it was unknown)
            with costs.context_share(it):
                _run_forward(it, part, dataclasses.replace(fr, facts=it.new_store()), label, span, param_value, entry)


def _run_forward(it, v: InstanceObj, fr: Frame, label: BuiltContext, span, param_value: Callable,
                 entry: Optional[frozenset] = None) -> bool:
    """`v.forward` on the inputs its own analysis has (unknown-rank tensors in its parameters'
    names, `x.shape[0]`), `v` itself as `self`: whether it ran. `entry`: for a part, the symbols
    of its ints at a call's entry (entry_state.py); its records print in its own names."""
    fwd = v.cls.lookup("forward")
    if not isinstance(fwd, FuncObj) or fwd.node is None:
        return False
    a = fwd.node.args
    params = (a.posonlyargs + a.args)[1:] + list(a.kwonlyargs)
    # the inputs as forward's own analysis has them (a frame of forward's, for annotations)
    own = Frame({}, fwd.qualname, fr.facts, fwd.globals, cls=fwd.cls, record=False)
    args = [param_value(it, fwd, p, own, False) for p in (a.posonlyargs + a.args)[1:]]
    kwargs = {p.arg: param_value(it, fwd, p, own, False) for p in a.kwonlyargs}
    if len(args) + len(kwargs) != len(params):
        return False
    if entry is not None:
        label = own_run(label, fwd.qualname, entry)
    host = dataclasses.replace(fr, built=(v, tuple(args) + tuple(kwargs.values()), label, []), returns=[])
    before = snapshot(v)
    own = not v.cls.module_path or v.cls.module_path == it.path  # (another module's model: one call, as before)
    with costs.model_forward(it, fwd if own else None):
        it.call_function(fwd, [v] + args, kwargs, host, span, created=v.span)
    run_own_methods(it, v, host, span, before)
    return True


def _parts(it, model: InstanceObj) -> list:
    """The modules inside `model` (registered, in containers, nested) that are instances of a
    class with a `forward` this file defines, one of each alike group (blocks built alike run
    alike); none past MAX_PARTS, since a line then lists the shapes of every group it has or
    none (sink.py). Each runs in the construction context on inputs in its own names, as
    `model` does: the model's forward passes them tensors in the model's input names, which
    their records would not be in (calls.py records only `model`'s own methods there)."""
    out: list = []
    todo = [model]
    visited = {id(model)}
    while todo:
        node = todo.pop(0)
        children = _children(node)
        if children is None:  # modules not known: a block missing from its group's shapes
            return []
        for child in children:
            if id(child) in visited:
                continue
            visited.add(id(child))
            todo.append(child)
            if isinstance(child, InstanceObj) and _own_forward(it, child) \
                    and not any(o.cls is child.cls and alike(o, child) for o in out):
                out.append(child)
                if len(out) > MAX_PARTS:
                    return []
    return out


def _children(node) -> Optional[list]:
    """The modules `node` holds; None when some are not known (a name `add_module` could not
    read, a container of layers that joined to nothing)."""
    if isinstance(node, InstanceObj):
        named = node.registered_modules()
        return [v for _, v in named] if named is not None else None
    if isinstance(node, ModuleV):
        # a container of unknown length holds its item, or one of the item's options (a loop
        # appending a pooling layer on one arm, a convolution on the other)
        items = list(node.elem.options) if isinstance(node.elem, ChoiceV) else [node.elem]
        if node.kind in CONTAINERS and node.children is None and \
                not all(isinstance(v, (InstanceObj, ModuleV)) for v in items):
            return None
        return list(node.children or ()) + (items if node.elem is not None else [])
    return []


def _own_forward(it, v) -> bool:
    """A `forward` written in the analysed file (other modules' lines are not recorded); `v`: an
    instance, or a class."""
    fwd = getattr(v, "cls", v).lookup("forward")
    return isinstance(fwd, FuncObj) and fwd.node is not None and (not fwd.module_path or fwd.module_path == it.path)


def recorded_in_built(fr: Frame, f: FuncObj, args: list, kwargs: dict, foreign: str, site: str) -> tuple:
    """(whether a call is recorded, the callee frame's `built`) (`foreign`: the callee's module
    when another's: its lines are not; `site`: the call's `QUALNAME:LINE`). While a factory's
    model runs (Frame.built): a method of that model given its very inputs
    (`self._forward_impl(x)`), whose names are the callee's too. One of this file given other
    tensors, or called from another module's code (a base class's `forward` calling the file's
    `forward_head`), is not, as called, nor is a module-level function of this file (a pooling
    helper a method calls); they run again on inputs in their own names (own_methods.py) —
    except in a construction context that assumes a configuration literal (`deep`,
    literal_contexts.py), whose only run the model's is: there the file's calls the model makes
    are recorded too (deep), under a label of their own (`deep_label`)."""
    built = fr.built
    if built is None:
        return (fr.record or fr.records_back) and not foreign, None
    model, inputs = built[0], built[1]
    helper = f.cls is None and "." not in f.qualname and f.closure is None and isinstance(f.node, ast.FunctionDef)
    if foreign or not helper and (f.cls is None or not args or args[0] is not model):
        return _deep(fr, foreign, site)
    given = all(any(v is i for i in inputs) for v in list(args[0 if helper else 1:]) + list(kwargs.values())
                if isinstance(v, TensorV))
    if fr.record and given and (not helper or len(built) > 4 and built[4] is f):  # (a helper: only as run again)
        return True, built
    if fr.record or fr.foreign:
        built[3].append((f, args, kwargs, sizes_at_call(fr.facts, list(args) + list(kwargs.values()))))
    return _deep(fr, "", site)


def _deep(fr: Frame, foreign: str, site: str) -> tuple:
    """A call not recorded as called, recorded deep where the context allows it, under a label
    naming the whole path of call sites from the model's run (frames.deep_context): one of them
    losing the value — a mask from another module's code not known, its attention no tensor —
    takes no shape from the model's parts, run in the construction's own label; and a layer the
    path reaches from two sites (a decoder block's self- and cross-attention) has a label per
    site, so that neither's shape is claimed for the other."""
    label = fr.built[2]
    if foreign or not fr.record or not getattr(label, "deep", False):
        return False, fr.built
    return True, fr.built[:2] + (deep_context(label, site),) + fr.built[3:]
