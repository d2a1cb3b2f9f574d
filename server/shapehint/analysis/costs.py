"""What following imported modules may cost (issue 28, cause 6): the analysed file's calls into
another module's code, and that module's top-level code, each within a share of steps.

A package's modules do much that no shape depends on: at import time they find out which
libraries are installed and set up logging; its base classes run set-up machinery (which
attention kernels exist, weight tying) at every construction; a file of a hundred model
factories would follow the same builder a hundred times. The shares keep the analysis of one
file close to what it costs without following (`check`'s time per file). Past a share, the value
is unknown (never a guess).

  top-level call    in an imported module's top-level code: a function's call is not run (its
                    value is unknown), unless it is that module's own helper given constants
                    (module_helpers.py) or the function makes a function (`to_2tuple =
                    _ntuple(2)`: a closure over its arguments, whose value callers use); that
                    and a construction (`TABLE = Registry()`) run within TOP_LEVEL_CALL_STEPS.
  imported call     a call from the analysed file's code into an imported module's: within
                    IMPORTED_CALL_STEPS, and all of them within IMPORTED_STEPS per function
                    analysed (a factory's helpers size its own model: `_make_divisible`
                    unknown made efficientnet_v2's blocks unknown), ALL_IMPORTED_STEPS in all;
                    constructions (a file's factories build hundreds of imported layers, each
                    at a small cost) within BUILDING_STEPS per function analysed instead
                    (each factory builds its own model: efficientnet.py's eleven would
                    spend one share by the sixth), all within ALL_BUILDING_STEPS; an
                    imported base's `__init__` given all of a subclass's arguments
                    (`super().__init__(*args, **kwargs)` in the generic analysis) is that
                    subclass's construction, within FORWARDED_CALL_STEPS; an imported base's
                    `forward` that a construction context runs as the file's model's is that
                    model's forward, within MODEL_FORWARD_STEPS (model_forward). A helper that
                    an imported constructor calls and that runs past its share is cut off
                    alone, the constructor's own statements after it given
                    HELPER_GRANT_STEPS (constructor_helper).
  callback          a call from imported code back into the analysed file's (a base class's
                    `__call__` running the file's `forward`, a helper given a function): the
                    file's own code is what is analysed, so it runs outside the caps, its own
                    calls into imported code capped afresh.
  module body       an imported module's top-level code runs within MODULE_STEPS (imports.py),
                    outside the caps of the calls that made it load.

Steps are the interpreter's (`Interp.steps`); a share is a lowered `step_limit`, and the Budget
raised past it is caught here unless the analysis's own limit was passed too.
"""
from __future__ import annotations

import ast
import contextlib
import functools

from typing import Optional

from ..shapes.values import UnknownV
from .frames import Budget
from .module_helpers import own_helper
from .objects import InstanceObj
from .spread import opens

TOP_LEVEL_CALL_STEPS = 400
HELPER_STEPS = 600  # per imported module, for its own helpers' top-level calls (module_helpers.py)
IMPORTED_CALL_STEPS = 1500
SIZED_FORWARD_STEPS = 60_000  # a sized context's forward's imported calls (sized_forward)
SIZED_CALL_STEPS = 40_000  # one in a factory's sized construction context (sized_kwargs.py)
FORWARDED_CALL_STEPS = 10_000  # a base constructor given a subclass's every argument (spread.py)
MODEL_FORWARD_STEPS = 10_000  # an imported base's forward run as a construction context's model's (model_forward)
HELPER_GRANT_STEPS = 750  # an imported constructor's own statements after a helper past its share
IMPORTED_STEPS = 15_000
BUILDING_STEPS = 100_000
ALL_BUILDING_STEPS = 400_000
ALL_IMPORTED_STEPS = 60_000


class ImportedCosts:
    """One analysis's account (held by its importer)."""

    def __init__(self, root_globals: dict):
        self.root_globals = root_globals  # the analysed file's globals: whose code is whose
        self.outer: list = []  # the step limit outside each imported call running, innermost last
        self.spent = 0  # steps taken in imported code (callbacks and module bodies excepted)
        self.built = 0  # of those, in constructions of imported classes (BUILDING_STEPS)
        self.built_before = 0  # in those of the functions analysed before (ALL_BUILDING_STEPS)
        self.spent_before = 0  # in imported calls of the functions analysed before (ALL_IMPORTED_STEPS)
        self.exempt = 0  # steps of callbacks and module bodies run inside imported calls
        self.helpers: dict = {}  # id(module globals) -> steps its own helpers' top-level calls took
        self.building: list = []  # a Building per imported call running, innermost last
        self.in_sized = False  # a factory's sized construction context is built (sized_share)
        self.sized = 0  # steps those contexts took (sized_kwargs.SIZED_STEPS)
        self.sized_forwards = 0  # of those, their models' forwards (sized_kwargs.ALL_FORWARD_STEPS)
        self.sized_dearest = self.forward_dearest = 0  # the most one rerun, one forward took (gives_way)
        self.literal = 0  # steps the literal construction contexts took (literal_contexts.LITERAL_STEPS)
        self.literal_cut = set()  # names of the classes whose literal context was cut off
        self.imported_steps = IMPORTED_STEPS  # the share of a function, or of a context (sized_forward)
        self.model_forward = None  # the imported forward a construction context is about to run (model_forward)


def account(it) -> Optional[ImportedCosts]:
    return getattr(it.imports, "costs", None)


def new_function_shares(it) -> None:
    """A function's generic analysis starts: its imported calls and constructions have shares
    of their own."""
    costs = account(it)
    if costs is not None:
        costs.built_before += costs.built
        costs.spent_before += costs.spent
        costs.built = costs.spent = 0


@contextlib.contextmanager
def sized_share(it):
    """A factory's body run again for its sized construction context (sized_kwargs.py): its calls
    into imported code and constructions have shares of their own, as that model is its own, and
    each call SIZED_CALL_STEPS (a library's builder resolving configurations and decoding block
    strings before it builds the file's model class it is handed, then its blocks);
    sized_kwargs.SIZED_STEPS bounds them all."""
    costs = account(it)
    if costs is None:
        yield
        return
    saved = costs.spent, costs.spent_before, costs.built, costs.built_before, costs.in_sized
    costs.spent = costs.spent_before = costs.built = costs.built_before = 0
    costs.in_sized = True
    try:
        yield
    finally:
        costs.spent, costs.spent_before, costs.built, costs.built_before, costs.in_sized = saved


@contextlib.contextmanager
def _swapped(it, name: str, value):
    """The analysis's account with `name` set to `value` for the block, restored after."""
    costs = account(it)
    if costs is None:
        yield
        return
    saved = getattr(costs, name)
    setattr(costs, name, value)
    try:
        yield
    finally:
        setattr(costs, name, saved)


def sized_forward(it):
    """The forward of a factory's sized context (sized_kwargs.py): a whole model of known sizes,
    every block of it an imported layer's forward (timm's blocks), within SIZED_FORWARD_STEPS of
    imported calls instead of IMPORTED_STEPS."""
    return _swapped(it, "imported_steps", SIZED_FORWARD_STEPS)


@contextlib.contextmanager
def context_share(it):
    """A model's forward running in a construction context (built.py): its calls into imported
    code (a stochastic-depth layer's, in every block) have a share of their own, as the model
    is its own, and charge none to the analysis's; MAX_CONTEXTS bounds how many there are."""
    costs = account(it)
    if costs is None:
        yield
        return
    saved = costs.spent, costs.spent_before
    costs.spent = costs.spent_before = 0
    try:
        yield
    finally:
        costs.spent, costs.spent_before = saved


def model_forward(it, fwd):
    """A construction context (built.py) runs the `forward` of a model whose class the analysed
    file defines and whose `forward` is an imported base's (a distilled vision transformer
    subclassing the library's): that forward is the model's, its blocks and heads run in it, so
    it has MODEL_FORWARD_STEPS as a base's `__init__` given all of a subclass's arguments has
    FORWARDED_CALL_STEPS (forwarded_construction). Within IMPORTED_CALL_STEPS, a flag the
    attention reads from a library's settings undecided (rebound_globals.py: both arms run) cut it
    off before it reached the file's own head."""
    return _swapped(it, "model_forward", fwd)


def crossing(it, f, fr, args: list = (), kwargs: Optional[dict] = None):
    """How a call of `f` from frame `fr` crosses between the analysed file and imported modules:
    the function that runs it (`(it, f, run) -> calls.py's result triple`), or None."""
    costs = account(it)
    if costs is None:
        return None
    root = costs.root_globals
    if fr.foreign and fr.qualname == "<module>" and fr.globals is not root:
        return own_helper_call if own_helper(f, fr, list(args), kwargs or {}) else top_level_call
    here, there = fr.globals is root, f.globals is root
    if here and not there and f is costs.model_forward:
        costs.model_forward = None  # (its own calls of the same forward, a nested model's, are calls)
        return functools.partial(imported_call, cap=MODEL_FORWARD_STEPS)
    if here and not there:
        inst = args[0] if args and isinstance(args[0], InstanceObj) and _is_init(f) else None
        return functools.partial(forwarded_construction if opens(list(args)) else imported_call, inst=inst)
    if there and not here and costs.outer:
        return callback
    b = costs.building[-1] if costs.building else None
    if not here and b is not None and b.inst is not None and fr.self_obj is b.inst and _is_init_frame(fr) \
            and not _is_init(f):
        return functools.partial(constructor_helper, b=b, given=list(args))
    return None


def _is_init(f) -> bool:
    return getattr(getattr(f, "node", None), "name", None) == "__init__"


def _is_init_frame(fr) -> bool:
    return fr.qualname.rsplit(".", 1)[-1] == "__init__"


class Building:
    """An imported constructor running on its instance (`inst`, None for other imported calls);
    `granted` once a helper of it ran past the share (constructor_helper)."""
    __slots__ = ("inst", "granted")

    def __init__(self, inst):
        self.inst, self.granted = inst, False


def constructor_helper(it, f, run, b: Building, given: list) -> tuple:
    """A helper that an imported constructor calls (a base's set-up machinery: which attention
    kernels exist). Within the constructor's share it runs as any call; run past it, the helper
    alone is cut off and the constructor's own statements after it get HELPER_GRANT_STEPS more
    (once; its later helpers within half of what is left), so that what it stores after the
    helper (`self.config = config`) stays known where the whole construction used to be cut off.
    A helper cut off that was given the instance may have set attributes on it: those not
    written yet read as unknown (unfinished.py)."""
    costs = account(it)
    if not costs.outer:
        return run()
    outside = costs.outer[-1]  # the limit around the imported call: past it, the analysis's own
    if b.granted:
        return within_steps(it, max(0, it.step_limit - it.steps) // 2, run, lambda: _cut(b, given))
    try:
        return run()
    except Budget:
        if it.steps > outside:
            raise
        b.granted = True
        it.step_limit = min(it.steps + HELPER_GRANT_STEPS, outside)
        return _cut(b, given)


def _cut(b: Building, given: list) -> tuple:
    if any(a is b.inst for a in given):
        b.inst.unwritten = True
    return UnknownV("a helper of an imported constructor past its share"), False, False


def top_level_call(it, f, run) -> tuple:
    if f.cls is None and not _makes_function(getattr(f, "node", None)):
        return UnknownV("a call in an imported module's top-level code"), False, False
    return within_steps(it, TOP_LEVEL_CALL_STEPS, run,
                        lambda: (UnknownV("a construction in an imported module's top-level code"), False, False))


def own_helper_call(it, f, run) -> tuple:
    """A module's own helper given constants (module_helpers.py), within TOP_LEVEL_CALL_STEPS and
    HELPER_STEPS per module; its steps are given back to the module body's share, whose later
    definitions must not go unbound because a module asks a helper a hundred questions
    (`_x_available = _is_package_available("x")`)."""
    costs = account(it)
    spent = costs.helpers.get(id(f.globals), 0)
    if spent >= HELPER_STEPS:
        return UnknownV("a helper call in an imported module's top-level code past its share"), False, False
    outer, start = it.step_limit, it.steps
    try:
        return within_steps(it, min(TOP_LEVEL_CALL_STEPS, HELPER_STEPS - spent), run,
                            lambda: (UnknownV("a helper call in an imported module's top-level code"), False, False))
    finally:
        used = it.steps - start
        costs.helpers[id(f.globals)] = spent + used
        it.step_limit = outer + used


def forwarded_construction(it, f, run, inst=None) -> tuple:
    """An imported base's `__init__` given all of a subclass's arguments, as the generic
    analysis's construction stands for them (`super().__init__(*args, **kwargs)`, spread.py):
    the subclass's parts are the base's, so the base is the construction, within
    FORWARDED_CALL_STEPS of the building share (a vision transformer's base builds its blocks in
    ~2,400 steps, past IMPORTED_CALL_STEPS)."""
    return imported_call(it, f, run, FORWARDED_CALL_STEPS, inst)


def imported_call(it, f, run, cap: int = IMPORTED_CALL_STEPS, inst=None) -> tuple:
    costs = account(it)
    # building the model's parts (a file's factories build hundreds of imported layers, each at
    # a small cost) counts against its own share only; other calls share the analysis's too
    building = getattr(getattr(f, "node", None), "name", None) == "__init__"
    left = min(BUILDING_STEPS - costs.built, ALL_BUILDING_STEPS - costs.built_before - costs.built) \
        if building else min(costs.imported_steps - costs.spent, ALL_IMPORTED_STEPS - costs.spent_before - costs.spent)
    if costs.in_sized:  # (a sized context's model: its helpers decode and build it, bounded in all there)
        cap = left = max(cap, SIZED_CALL_STEPS)
    if left <= 0:
        return UnknownV("a call into an imported module past the analysis's share"), False, False
    start, exempt = it.steps, costs.exempt
    costs.outer.append(it.step_limit)
    costs.building.append(Building(inst))
    try:
        return within_steps(it, min(cap, left), run,
                            lambda: (UnknownV("a call into an imported module past its share"), False, False))
    finally:
        costs.outer.pop()
        costs.building.pop()
        used = (it.steps - start) - (costs.exempt - exempt)
        if building:
            costs.built += used
        else:
            costs.spent += used


def callback(it, f, run) -> tuple:
    return outside_caps(it, run)


def outside_caps(it, run):
    """`run()` outside the shares of the imported calls running (their limits move on by the
    steps it takes); inside it, calls into imported code are capped afresh."""
    costs = account(it)
    if costs is None or not costs.outer:
        return run()
    saved_limit, start, running = it.step_limit, it.steps, costs.outer
    outermost = running[0]
    it.step_limit, costs.outer = outermost, []
    try:
        return run()
    finally:
        used = it.steps - start
        costs.outer = running
        it.step_limit = min(saved_limit + used, outermost)
        costs.exempt += used


def within_steps(it, steps: int, run, past):
    """`run()` given at most `steps` more steps of the analysis; `past()` when they are spent
    (the analysis's own limit still ends the analysis)."""
    outer = it.step_limit
    it.step_limit = min(it.steps + steps, outer)
    try:
        return run()
    except Budget:
        if it.steps > outer:
            raise
        return past()
    finally:
        it.step_limit = outer


def _makes_function(node) -> bool:
    """Whether a function's body defines a function and returns it (`def _ntuple(n): def
    parse(x): ...; return parse`): a factory of closures, cheap to run."""
    body = getattr(node, "body", None) or []
    defined = {st.name for st in body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}
    last = body[-1] if body else None
    return isinstance(last, ast.Return) and isinstance(last.value, ast.Name) and last.value.id in defined
