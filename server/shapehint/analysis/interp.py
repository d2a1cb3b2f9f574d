"""The abstract interpreter: runs a module's code over abstract values.

`Interp` holds its parts as attributes, each a class of its own (none inherits from another):
expressions (evaluator.py), comparisons (compare.py), statements (executor.py), control flow
(controlflow.py), calls and instantiation (calls.py, callmemo.py), nn layers (layers.py),
builtins (builtins.py), ranks (ranks.py), shape comments, the environment of symbols and facts
(environment.py), the reporter (reporter.py), the calls running (callstack.py), all of whose
effects go through one journal (journal.py). The interpreter dispatches each node to the part
evaluating it and counts the steps; every part's methods are bound on it once, and each part
gets what it calls on the others bound once too (`wire`, its `_USES`). It keeps the state of the
module being run (`path`, `lines`, `functions`: an import or a call into another file swaps
them) and what the parts share (writes, branch records, generic analyses). Frames, branch records
and spans live in the leaf module frames.py, which every part imports.

Semantics (DESIGN §3): a precondition that no admissible input satisfies is an error on the
line that needs it; one that some input satisfies becomes a fact for the rest of the path
(Tensors Fitting Perfectly: inputs that get past a line satisfy its preconditions).
"""
from __future__ import annotations

import ast
from bisect import bisect_right
from typing import Optional

from ..shapes.values import DefaultNoneV, IntV, TensorV, UnknownV, Value, born_now
from ..solver.facts import Limits
from .annotations import AnnotationReader
from .builtins import Builtins
from .library_helpers import LibraryHelpers
from .calls import Calls
from .layers import Layers
from .objects import ShapeAliasV
from .compare import Comparisons
from .evaluator import Expressions
from .comprehensions import Comprehensions
from .callmemo import WRITABLE, CallMemo
from . import first_items, global_objects, grown_lists
from ..ops import pieces
from .anycaller import AnyCallerMemo
from .environment import Environment
from .reporter import Reporter
from .callstack import CallStack
from .frames import Budget, BranchRecord, Cancelled, Frame, span_of  # noqa: F401  (the interpreter's API)
from .contracts import Contracts
from .controlflow import ControlFlow
from .executor import Statements
from .ranks import Ranks
from .shape_comments import ShapeComments
from .sink import Sink
from . import product_names

_MISSING = object()
_AFTER_ALL = float("inf")  # sorts after every serial that starts a span
MAX_DEPTH = 16  # calls: a timm build's padding helper runs thirteen deep (docs/analysis.md, Calls)
# Steps (evaluated nodes): one function's own analysis may take FUNCTION_STEPS, the whole module
# MAX_STEPS. The largest real functions seen take ~90k (a funnel-transformer encoder, loops over
# blocks of layers), a generated 16,000-line module ~120k in all; a function past its share is
# cut short on its own (SH004) instead of starving every function after it.
FUNCTION_STEPS = 150_000
MAX_STEPS = 1_000_000


def _unknown_node(node, fr) -> UnknownV:
    return UnknownV(type(node).__name__)


_METHODS: dict = {}  # part class -> the names of its methods (found once: an analysis is made per question)


def _methods(cls) -> tuple:
    names = _METHODS.get(cls)
    if names is None:
        # (not the node handlers, `e_Call`, `s_If`: the dispatch finds them on the parts)
        names = _METHODS[cls] = tuple(n for n, fn in vars(cls).items() if callable(fn) and not n.startswith("__")
                                      and not n.startswith(("e_", "s_")))
    return names


def wire(part, interp) -> None:
    """Gives `part` what it calls on the other parts (its `_USES`), bound once: the interpreter's
    attribute of that name (`interp` is the interpreter itself)."""
    for name in type(part)._USES:
        value = interp if name == "interp" else getattr(interp, name, _MISSING)
        setattr(part, name, interp._method(name) if value is _MISSING else value)


class Interp:
    # What is not an effect (journal.py; tests/unit/test_journal.py checks every other
    # attribute is a journaled container): set when made; put back by every step; the driver's
    # position (the step budget: steps are counted on every node, the hottest path there is;
    # the importer, wired by the engine once the module's globals exist)
    FIXED = ("path", "module_tree", "lines", "file_lines", "sink", "env", "observe", "cancel", "modules", "max_depth", "memo",
             "comments", "param_ranks", "as_built", "reporter", "call_stack", "shape_comments", "ranks", "expressions", "comprehensions",
             "comparisons", "statements", "control", "calls", "layers", "builtins", "library", "contracts", "parts")
    WORKING = ("module_code", "own_loops")
    CURSOR = ("steps", "step_limit", "_tensor_names", "imports", "_eval_of", "_exec_of")  # (and the dispatch caches)

    def __init__(self, path: str, lines: list[str], sink: Sink, limits: Optional[Limits] = None,
                 cancel=None, modules=None, on_store=None, observe: bool = True, comments=None,
                 param_ranks=None, memo: bool = True, as_built: bool = False, module_tree=None):
        self.path = path
        self.module_tree = module_tree  # (its imports, as devicerun/builders.py reads them: sized_kwargs._handed)
        self.lines = lines
        self.file_lines = lines  # `lines` is another module's while its code runs (calls.py)
        self.sink = sink
        j = self.journal = sink.journal  # one journal for the analysis's parts
        # record what each expression evaluates to (the sink's observations, for the records);
        # off when the caller wants no records (engine.analyze(records=False))
        self.observe = observe
        self.cancel = cancel
        self.modules = modules  # resolver for workspace imports (module name -> globals) or None
        env = self.env = Environment(j, limits, on_store)  # symbols, ranks, holes, fact stores
        self.fresh_symbol, self.fresh_dyn, self.fresh_star = env.fresh_symbol, env.fresh_dyn, env.fresh_star
        self.opaque_symbol, self.new_store, self.hole_symbol = env.opaque_symbol, env.new_store, env.hole_symbol
        self.resolve, self.resolve_shape, self.param_star = env.resolve, env.resolve_shape, env.param_star
        self.learn_rank, self.learn_edge, self.arm_segment = env.learn_rank, env.learn_edge, env.arm_segment
        self.open_arm, self.close_arm, self.join_arms = env.open_arm, env.close_arm, env.join_arms
        self.forget_arm, self.truncated, self.least = env.forget_arm, env.truncated, env.least
        self.sides_shared = env.sides_shared
        self.derived_star, self.view_base, self.joined_star = env.derived_star, env.view_base, env.joined_star
        reporter = self.reporter = Reporter(sink)  # diagnostics and failure records
        self.report, self.failed, self.declared = reporter.report, reporter.failed, reporter.declared
        self.raised = reporter.raised
        self.steps = 0
        self.step_limit = MAX_STEPS  # the running function's share (engine.analyze_function)
        self.generic_instances: dict = j.table("generic-instance")
        self.generic_done: set = j.tally("generic-done")  # the functions whose own analysis ran (engine)
        self.max_depth = MAX_DEPTH
        stack = self.call_stack = CallStack()  # the calls running (recursion bounds)
        self.own_loops: list = []  # (index, entries) of the loops over per-layer items running (own_entries.py)
        self.own_born: list = j.log("born-in-loops")  # (from, to) serials of what loop bodies and comprehensions made (own_entries.py)
        self.running, self.recursion_guessed = stack.running, stack.recursion_guessed
        self.repeats_running_call = stack.repeats_running_call
        self.cut_short: list = j.log("cut-short")  # functions whose own analysis spent its step share (SH004)
        self.internal_errors: list[str] = j.log("internal-error")
        self.branches: list[BranchRecord] = j.log("branch")
        self.called_from: dict[str, set] = j.table("called-from")  # function -> roots (Frame.root) of the analyses that call it
        # the objects written to (attributes, items, a list's growth, ...), in order: a call that
        # wrote nothing, or a construction that wrote only what it created, may be answered from
        # an earlier alike one while nothing it can read was written since (callmemo.py)
        self.mutation_log: list = j.log("write")
        self.span_log: list = j.log("span")  # (layer or instance, the span it had) as `self.x = v` moves v's span
        self.module_spans: list = j.log("module-span")  # (first, last) creation serials of module code's objects (outermost bodies)
        self.memo = CallMemo(AnyCallerMemo()) if memo else None
        self.module_code = 0  # module bodies running (exec_module_body)
        self.global_states: list = j.log("global-state")  # what each module's body left in its objects (global_objects.py)
        self.hinted: set[int] = j.tally("hinted")  # ids of tuples only a parameter's typing hint shapes (contracts.py)
        self.zero_defaults: set[int] = j.tally("zero-default")  # ids of the 0s that are parameter defaults (contracts.py)
        self.omitted: set[int] = j.tally("omitted")  # ids of the None values standing for omitted optional arguments
        self.param_values: dict = j.table("param-values")  # function -> {param: Value} of its generic analysis
        # function -> {param: rank} given instead of an unknown rank (engine.analyze)
        self.param_ranks: dict = param_ranks or {}
        # the classes' generic instances are as `Cls()` builds them: a `None` default stays None
        # and a part built only for a given argument stays absent (questions/migrate.py's proposal
        # for the model built with its defaults), not opened to whatever a caller may pass
        self.as_built = as_built
        self.gave_up_in: dict = j.table("gave-up")  # Frame.root -> operations on tensors it could not follow (calls.gave_up)
        self.generic_stores: dict = j.table("generic-store")
        self.divisible: dict = j.table("divisible")  # class -> {(n, d)} its constructor proves n % d == 0 (divisibility.py)
        self.built_runs: dict = j.table("built-run")  # class -> construction contexts run for it (built.py)
        self.counted: set[str] = j.tally("counted")  # the sizes a running context assumes from 1 up (param_lengths.py)
        self.generic_returns: dict = j.table("generic-return")  # function -> FactStore of its generic analysis
        self.functions: list = j.log("function")
        self.classes: list = j.log("class")
        self.comments: dict[int, str] = comments or {}
        self.module_lines: dict[str, list] = j.table("module-lines")  # other workspace modules' source, for messages
        self.imports = None  # callable(module, level) -> namespace or None (workspace imports)
        # components carved out of the interpreter: they call back into it through the bound
        # methods given here (the evaluator's, made with the class)
        self.shape_comments = ShapeComments(self.comments, sink, env, self.report)
        self.check_shape_comment = self.shape_comments.check
        self.ranks = ranks = Ranks()  # ranks learned from unpacking and guards
        self._learn_unpack_rank, self._learn_guarded_ranks = ranks.learn_unpack_rank, ranks.learn_guarded_ranks
        self._rank_outcomes, self._unpack_sizes = ranks.rank_outcomes, ranks.unpack_sizes
        self._own_arm_copies = ranks.own_arm_copies
        self.expressions = Expressions()  # each kind of expression
        self.comprehensions = Comprehensions()  # comprehensions, and joins of values
        self.comparisons = Comparisons()  # comparisons, membership, truth
        self.statements = Statements()  # simple statements, assignments, definitions, imports
        self.control = ControlFlow()  # if, loops, try, with
        self.calls = Calls()  # calls of everything callable, instantiation of user classes
        self.layers = Layers()  # nn layers and containers
        self.builtins = Builtins()  # Python builtins, container methods
        self.library = LibraryHelpers()  # torch's runtime checks, checkpointing, math
        self.contracts = Contracts()  # annotations and unpackings checked (what users declare)
        # Every part's methods are the interpreter's (what engine, the questions and the rules'
        # context call), bound once; then each part gets what it calls on the others.
        self.parts = (self.expressions, self.comprehensions, self.comparisons, self.statements, self.control, self.calls, self.layers,
                      self.builtins, self.library, ranks, self.contracts)
        for part in self.parts:
            for name in _methods(type(part)):
                setattr(self, name, getattr(part, name))
        for part in self.parts:
            wire(part, self)
        # node class -> the part's method evaluating (executing) it, found on first use
        self._eval_of: dict = {}
        self._exec_of: dict = {}

    # ---- dispatch -------------------------------------------------------------------------
    def eval(self, node, fr):
        self.steps += 1  # one step (check_budget)
        if self.steps > self.step_limit or self.cancel is not None and not self.steps & 63:
            self.check_budget()
        t = type(node)
        fn = self._eval_of.get(t)
        if fn is None:
            fn = self._eval_of[t] = self._method("e_" + t.__name__) or _unknown_node
        v = fn(node, fr)
        if self.observe and fr.record and isinstance(v, (TensorV, IntV)) and \
                not isinstance(node, (ast.Constant, ast.Starred)):
            self.sink.record(span_of(node), self.source(node), fr.qualname, v, fr.context, fr.is_entry, False, "",
                             fr.params)
        return v

    def exec_block(self, stmts, fr) -> Optional[str]:
        for st in stmts:
            flow = self.exec_stmt(st, fr)
            if flow is not None:
                return flow
        return None

    def exec_stmt(self, st: ast.stmt, fr) -> Optional[str]:
        self.steps += 1  # one step (check_budget)
        if self.steps > self.step_limit or self.cancel is not None and not self.steps & 63:
            self.check_budget()
        t = type(st)
        fn = self._exec_of.get(t, _MISSING)
        if fn is _MISSING:
            fn = self._exec_of[t] = self._method("s_" + t.__name__)
        return fn(st, fr) if fn is not None else None

    def _method(self, name: str):
        """The part's method of that name (`e_Call`, `s_If`, ...), or None."""
        for part in self.parts:
            fn = getattr(part, name, None)
            if fn is not None:
                return fn
        return None

    def segment_product(self, star: str):
        """The product of a segment's axes, named where it is a parameter's (product_names.py)."""
        return product_names.named_product(self.env, self.sink.renames_of, star, self.sink.owner)

    # counters kept by the journal: how many there have been is the count of their entries
    @property
    def cutoffs(self) -> int:
        """Calls cut short as recursion or too deep."""
        return self.journal.count("cutoff")

    @property
    def module_runs(self) -> int:
        """Module bodies run so far."""
        return self.journal.count("module-run")

    @property
    def global_mutations(self) -> int:
        """Writes, after module code, to objects module code made."""
        return self.journal.count("global-write")

    def note_called_from(self, qualname: str, root: str) -> None:
        roots = self.called_from.get(qualname)
        if roots is None:
            roots = self.called_from[qualname] = self.journal.tally("called-from")
        roots.add(root)

    def exec_module_body(self, body: list, fr: Frame):
        """A module's top-level code. It rebinds globals, which functions read without any
        write to an object (`SCALE = 4` between two calls of a function reading SCALE): the
        call memo stays off meanwhile, and what it creates may be reached through globals
        (callmemo.py)."""
        self.module_code += 1
        self.journal.note("module-run")
        first = born_now()
        try:
            return self.exec_block(body, fr)
        finally:
            # settled while the body still counts as running: forgetting its objects' state is
            # not a write that a function's call could have made (it would turn the memo off)
            self.global_states.append(global_objects.settle(fr.globals, self.mutated))
            self.module_code -= 1
            if not self.module_code:  # (the bodies it ran lie within its span: only the outermost count)
                self.module_spans.append((first, born_now()))

    @property
    def mutations(self) -> int:
        return len(self.mutation_log)

    def mutated(self, obj) -> None:
        """`obj` is being written to (only lists, dicts, layers and instances can be)."""
        if not isinstance(obj, WRITABLE):
            return
        self.mutation_log.append(obj)
        if getattr(obj, "written_elsewhere", False):
            # (a call before this write and one after it read other values of the table, though
            # their arguments are alike: rebound_globals.call_kinds)
            self.journal.note("rebind")
        grown_lists.forget(obj)
        pieces.forget(obj)
        first_items.forget(obj)
        if not self.module_code:
            # the outermost bodies' spans, disjoint and in order: the last one starting at or
            # before it is the only one that can hold it (a scan of them all was a fiftieth of
            # `check`'s time on transformers' modeling files)
            spans = self.module_spans
            i = bisect_right(spans, (obj.born, _AFTER_ALL)) - 1
            if i >= 0 and obj.born <= spans[i][1]:
                self.journal.note("global-write")

    # ---- facts and symbols ------------------------------------------------
    def note_omitted(self, fr: Frame, *vals) -> None:
        """A decision looked at an omitted optional argument's None (see Frame.assumes_default)."""
        if any(id(v) in self.omitted or isinstance(v, DefaultNoneV) for v in vals):
            fr.assumes_default = True

    def check_budget(self) -> None:
        """Called by eval and exec_stmt, which count the steps themselves (they are the hottest
        calls), past the step budget or on every 64th step of an analysis that can be cancelled."""
        if self.steps > self.step_limit:
            raise Budget()
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def function_named(self, qualname: str):
        """The function object of this module named `qualname`, if any."""
        return next((f for f in self.functions if f.qualname == qualname), None)

    def source(self, node: ast.AST, limit: int = 60) -> str:
        s = span_of(node)
        if s.line != s.end_line or s.line > len(self.lines):
            text = self.lines[s.line - 1][s.col:].strip() + " …" if s.line <= len(self.lines) else "…"
        else:
            text = self.lines[s.line - 1][s.col:s.end_col]
        return text if len(text) <= limit else text[:limit - 1] + "…"

    # ---- annotations and holes ------------------------------------------------------
    def annotation_shape(self, node, fr, globals_: Optional[dict] = None):
        g = globals_ if globals_ is not None else fr.globals

        def resolve(n):
            rec, fr.record = fr.record, False
            saved = fr.globals
            fr.globals = g
            try:
                return self.eval(n, fr)
            finally:
                fr.record = rec
                fr.globals = saved
        def follow(alias):  # (a cycle of aliases ends in RecursionError, caught below)
            return self.annotation_shape(alias.node, fr, alias.globals) if isinstance(alias, ShapeAliasV) else None
        reader = AnnotationReader(resolve, self.fresh_dyn, self.fresh_star, self.hole_symbol, follow)
        try:
            return reader.read(node)
        except (RecursionError, ValueError):
            return None

    def import_module(self, name: str, level: int, globals_: Optional[dict] = None):
        """The workspace module `name` as the module whose globals are `globals_` imports it."""
        if self.imports is None:
            return None
        try:
            return self.imports(name, level, globals_)
        except (Budget, Cancelled):
            raise
        except Exception:
            return None

    def resolve_import(self, holder: dict, name: str, lazy) -> Value:
        """The value of `holder[name]`, an import not looked up yet (imports.LazyImport): looked
        up now, and kept in its place once final."""
        try:
            got, final = self.imports.resolve(lazy)
        except (Budget, Cancelled):
            raise
        except Exception:
            return UnknownV(name)
        if final and holder.get(name) is lazy:
            holder[name] = got
        return got
