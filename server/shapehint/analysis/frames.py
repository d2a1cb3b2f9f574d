"""What the interpreter's parts share without depending on the interpreter: frames, the record
of one execution of an `if`, the span of a syntax node, the two ways an analysis stops, and the
bound on recursion.

A leaf module, so the parts (evaluator, executor, calls, ...) import these at module level: a
function-level import costs ~1.4 µs per call, and `span_of` alone is called ~2,000 times in a
small model's analysis.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Optional

from ..shapes.values import Span

# A function that calls itself on the same receiver (`bsp_acot(q, a, m)` splitting a range,
# `self.f(n - 1)`): while its outermost call runs, at most this many calls of it run in all, then
# further ones are unknown. Linear recursion (`down(pool(x), n - 1)`) keeps MAX_DEPTH levels;
# binary splitting would otherwise make 2**MAX_DEPTH calls (20 s for mpmath's libelefun.py). A
# module tree that nests instances of one class (a recursive U-Net block) has a new receiver
# each level and is bounded by MAX_DEPTH only.
MAX_RECURSIVE_CALLS = 16
MAX_GUESSED_RECURSION = 2  # re-entries under undecided `if`s (CallStack.recursion_guessed)

if TYPE_CHECKING:  # annotations only
    from ..shapes.shape import Pred
    from ..shapes.values import Value
    from ..solver.facts import FactStore
    from .objects import ClassObj


class Cancelled(Exception):
    pass


class Budget(Exception):
    """The analysis ran out of its step budget (a huge or pathological file)."""


@dataclass(slots=True)  # (made on every call the interpreter follows; slots make that and each read cheaper)
class Frame:
    env: dict
    qualname: str
    facts: FactStore
    globals: dict
    context: str = ""  # "" = the function's own (generic) analysis
    is_entry: bool = False  # called directly from module-level code
    depth: int = 0
    cls: Optional[ClassObj] = None
    self_obj: Optional[Value] = None
    receiver: str = ""  # the name bound to self_obj, never rebound in the method (many_items.py)
    returns: list = field(default_factory=list)
    call_sites: list = field(default_factory=list)  # spans of the calls that led here
    record: bool = True
    iter_label: str = ""
    dead: bool = False  # a provable error happened on this path: no admissible input gets further
    foreign: str = ""  # path of another workspace module whose code this frame runs
    # runs another module's code entered from a recorded call of this file: a function of this
    # file it calls back (a method passed as a callback) is recorded, as called at that entry
    records_back: bool = False
    created: list = field(default_factory=list)  # where the user layers on the call path were built
    # the analysis this frame belongs to: a function's qualname for its generic analysis and the
    # calls made from it, "<module>" for module-level code, "" for auxiliary runs (the generic
    # instance's `__init__`, imported modules)
    root: str = ""
    # a decision on this path took an optional argument of the analysed function to be omitted
    # (`if mask is None`, with `mask=None` its default): what follows holds only for such calls
    assumes_default: bool = False
    # inside how many undecided arms of an expression (`a if c else b`, `c and a`): a binding
    # such an arm learns of (an optional tensor read as given) must not outlive it, as the
    # expression restores no names (cf. `if` statements, controlflow._if)
    expr_arms: int = 0
    # some path of a caller had already returned when this call was made: what holds from here
    # on does not hold for every execution of the analysed function
    after_return: bool = False
    # parameters a call left at their defaults though the caller's `**kwargs` (its generic
    # analysis's: any keys) may set them: an assertion on one is not an error (_on_defaults)
    open_defaults: frozenset = frozenset()
    # the loop whose body runs now, when its passes are counted (loop_counts.py)
    loop_count: Optional[tuple] = None
    # FactStore.depth where the analysed function made the call that led here: an error deeper
    # than that lies in an arm the call could not decide, which inputs taking the other avoid
    entry_depth: int = 0
    # marks pushed past an undecided `if` whose one arm returned (controlflow._continue_past): what
    # the path that got on learned holds only until this call returns
    return_marks: int = 0
    # inside how many `try` bodies whose handler catches a shape error and gets on: an error
    # there is caught, not a failure (controlflow.s_Try)
    caught: int = 0
    # names a `global` (`nonlocal`) statement of this function declared: a store rebinds the
    # module's (the enclosing function's) name (rebound_globals.py)
    declared: frozenset = frozenset()
    nonlocals: frozenset = frozenset()
    # why `dead` last became true: "rank" for a tensor's shape unpacked into the wrong number of
    # names (contracts.check_unpack; flags.quiet_arm_ends), "" otherwise
    died_of: str = ""
    # inside how many `try` bodies with a handler that catches ImportError, and the module whose
    # import raised there (optional_imports.py): the handler that catches it takes over
    imports_may_fail: int = 0
    import_failed: Optional[str] = None
    # a model a factory returned, run in that construction context (built.py), and its inputs:
    # only its own methods given those very inputs are recorded, since a callee's shapes there are
    # in the model's input names, not the callee's (the others run again in their own names)
    # (model, its inputs, the context's label: a BuiltContext, the calls of its methods to run
    # again in their own names: own_methods.py)
    built: Optional[tuple] = None
    closure: Optional[object] = None  # a nested function's enclosing names (closures.py)
    # a call's tensor parameters as bound ((name, value), ...), the names its annotations bound
    # (name -> the caller's dim) and the kind of each argument (`TensorV`, `NoneV`, ...): what the
    # records of this call translate into the function's own names (contexts.own_names); empty
    # in a function's own analysis
    params: tuple = ()
    # the function's declared result (contracts.Declared), checked at each `return`
    declared_return: Optional[object] = None
    # index in `returns` -> the facts in force at a return made inside an undecided arm (returns.py)
    arm_facts: dict = field(default_factory=dict)
    # (a parameter's name, its value's id) -> its link symbol in this call (linked_choices.py)
    links: dict = field(default_factory=dict)


class BuiltContext(str):
    """The label of a construction context, `QUALNAME:LINE` of the factory that built the model
    (built.py): listed among a line's contexts, never taken for the line's own shape, since the
    class may be built in other ways elsewhere (a public model class: the user's own settings)."""


def own_run(label: BuiltContext, qualname: str, entry: frozenset = frozenset()) -> BuiltContext:
    """`label` for a run of `qualname` (a part's `forward`) on inputs in its own names (built.py): its
    records are in that function's names, so they print with its program names (`height` for
    `input_dimensions[0]` after `height, width = input_dimensions`), as its own analysis does;
    a method it calls, recorded under the same label, is not (sink.py). `entry`: the symbols of
    attributes at the run's entry (entry_state.py), which a method it calls after `forward`
    rewrote them would read as their value then: unknown in that method's records."""
    if getattr(label, "deep", False):
        return label
    out = BuiltContext(label)
    out.__dict__.update(getattr(label, "__dict__", {}))
    out.runs, out.entry = qualname, entry
    return out


VIA = " via "  # (between a deep context's construction label and the call site it began at)


def deep_context(label: BuiltContext, site: str) -> BuiltContext:
    """`CONSTRUCTION via QUALNAME:LINE`: the label of the records of the file's calls a model's
    run made in a construction context that records them (built.recorded_in_built), from that
    call site on: a label of their own, so a value lost in one of them does not drop the
    construction's own records at that line (sink.lost_built). A call made under such a label
    adds its site (`... via Q:N via R:M`, outermost first): the label names one call path, whose
    every run its shapes hold for (two calls of one layer from a block's two lines would else
    share a label, each one's shape read as the other's)."""
    deep = BuiltContext(f"{label}{VIA}{site}")
    deep.deep, deep.site = True, site
    return deep


class BranchRecord(NamedTuple):
    """One execution of an `if` (Q3): what the facts of that path said about its condition."""
    node: ast.If
    function: str
    pred: Optional[Pred]  # None: the condition is not a shape predicate the analysis follows
    decided: Optional[bool]  # what the path's facts alone decide
    context: str
    facts: list  # the path's facts at the `if`
    root: str  # Frame.root
    store: FactStore  # the store the facts belong to (symbol bounds, solver session)
    assumes_default: bool  # Frame.assumes_default when the `if` ran
    # a test over an unknown rank (`x.dim() != 4`): {"segment": the star, "outcomes": {outcome:
    # the star's length for a witness}, "params": {parameter of the analysed function: its shape
    # around that segment when the `if` ran}} (guards.rank_outcomes); pred is None then
    ranks: Optional[dict] = None


def decorated(node: ast.FunctionDef, name: str) -> bool:
    """`@name` (`staticmethod`, `classmethod`, `property`) decorates the function."""
    return any(isinstance(d, ast.Name) and d.id == name for d in node.decorator_list)


def span_of(node: ast.AST) -> Span:
    # kept on the node: a call's node is asked for its span several times on its way to a rule,
    # and a (frozen) Span costs ~0.7 µs to make; trees are not changed once parsed
    got = getattr(node, "_sh_span", None)
    if got is not None:
        return got
    try:  # expressions and statements (nearly every call) have all four
        line, col, end_line, end_col = node.lineno, node.col_offset, node.end_lineno, node.end_col_offset
        if end_line is not None and end_col is not None:
            node._sh_span = Span(line, col, end_line or line, end_col or col)
            return node._sh_span
    except AttributeError:
        pass
    line = getattr(node, "lineno", 1)
    col = getattr(node, "col_offset", 0)
    return Span(line, col, getattr(node, "end_lineno", None) or line, getattr(node, "end_col_offset", None) or col)


def add_fact(store, p: "Pred", origin) -> None:
    """A conjunction becomes one fact per conjunct: `x.shape == (4, 3)` then pins each dimension
    (display reads single equations) and unsat cores stay as precise."""
    for q in (p.args if p.op == "and" else (p,)):
        store.add(q, origin)


def keep_shared_facts(store, arm1: list, arm2: list) -> None:
    """After an undecided branch both of whose arms get on: the facts each arm learned on its own
    level (`arm_facts` of `in_arm`) that the other learned too hold on every path past it (both
    arms of `if fast: y = fused_norm(x, (d,)) else: y = layer_norm(x, (d,))` require x's last
    size to be d; dropping that with the arms' facts leaves y's `d` and x's size unrelated, and
    `x + y` broadcasts them to max(...))."""
    seen = {f.pred for f in arm1}
    for f in arm2:
        if f.pred in seen:
            seen.discard(f.pred)
            store.add(f.pred, f.origin)
