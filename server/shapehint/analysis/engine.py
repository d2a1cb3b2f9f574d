"""One analysis of one module, from text to `AnalysisResult`.

Stages: parse (frontend, with error recovery) → run the module body (imports, classes,
module-level code, which calls into the model with concrete inputs: the entry contexts) →
analyse every function generically, in terms of its own parameters (annotations, defaults,
or unknown-rank tensors whose rank is learned from use) → join the observations into
records and diagnostics.
"""
from __future__ import annotations

from .. import gc_policy
from ..shapes.values import DictV, Span, UnknownV
from ..solver.facts import Limits
from .built import run_built_models
from .flag_defaults import run_at_flag_defaults
from .failed_contexts import run_guarded
from .frames import Budget, Cancelled, Frame, decorated, span_of
from . import interp as interp_limits
from . import costs, global_objects, sized_kwargs
from .interp import Interp
from .hover_facts import compose_dims, fixed_symbols, logged_dims
from .defaults import open_default_nones
from .objects import FuncObj, InstanceObj, OpenArgsV
from .optional_parts import open_optional_parts
from .result import AnalysisResult, Diagnostic, Entry, Pending
from .session import AnalysisSession
from .sink import Sink
from .sealed_dicts import mark_written
from .written_lists import forget_written
from .rebound_globals import forget_rebound
from .held_sizes import name_held_sizes
from .unknown_sizes import name_unknown_sizes
from .generic import construct, forget_state, generic_instance, own_copy, param_value



def parse(text: str, path: str, compile_errors: bool = True):
    from ..frontend.parse import parse_module
    return parse_module(text, path, compile_errors)


def parse_imported(text: str, path: str):
    """An imported module's tree: its syntax errors are not reported (only the analysed file's
    are), so CPython's compiler, which only finds errors, is not run on it (25 ms for a
    2,000-line module, once per module and process)."""
    return parse(text, path, compile_errors=False)


def analyze(text: str, path: str = "<string>", **options) -> AnalysisResult:
    """The plain result of one analysis (`run` for the options)."""
    return run(text, path, **options).result


def run(text: str, path: str = "<string>", config=None, cancel=None, parsed=None, imports=None,
        on_store=None, cache=None, defer_values: bool = False, records: bool = True,
        functions=None, ranks=None, compile_errors: bool = True, memo: bool = True,
        as_built: bool = False) -> AnalysisSession:
    """One analysis: its plain result and the live interpreter, as an `AnalysisSession`.
    `defer_values`: leave the records to the first read of `result.values` (the language
    server publishes the diagnostics first). `records=False`: no records and no hover table at
    all (the CLI's questions print neither). `functions`: analyse only these functions
    generically (qualnames; the module body always runs) — a question about one function needs
    no other function's own analysis, since calls run the callee's body in the caller's context;
    the diagnostics are then those of what ran. `ranks` ({function: {parameter: rank}}): those
    parameters, unannotated tensors whose rank the generic analysis would leave unknown, have that
    rank instead (the migration's search for a rank that works, questions/migrate.py).
    `compile_errors=False`: SH001 leaves out the errors only CPython's compiler finds
    (frontend/parse.parse_module; for answers that print no diagnostics). `memo=False`: every
    call runs even without records (callmemo.py; the memo must change no answer). `as_built`:
    the classes' generic instances are as their defaults build them (Interp.as_built).
    The cyclic collector is paused meanwhile (gc_policy.py)."""
    with gc_policy.paused():
        parsed = parsed or parse(text, path, compile_errors)
        return _analyze(text, path, config, cancel, parsed, imports, on_store, cache, defer_values, records,
                        None if functions is None else with_enclosing(functions), ranks, memo, as_built)


def _analyze(text, path, config, cancel, parsed, imports, on_store, cache, defer_values, records,
             functions, ranks=None, memo: bool = True, as_built: bool = False) -> AnalysisSession:
    limits = Limits()
    if config is not None:
        limits = Limits(getattr(config, "timeout_ms", limits.timeout_ms), getattr(config, "rlimit", limits.rlimit))
    sink = Sink(path)
    it = Interp(path, parsed.lines, sink, limits, cancel, on_store=on_store, observe=records,
                comments=parsed.comments, param_ranks=ranks, memo=memo, as_built=as_built, module_tree=parsed.tree)
    from .imports import Importer
    diagnostics = [Diagnostic(e.line, e.col, e.end_line, e.end_col, "error", "SH001", e.message)
                   for e in parsed.errors]
    globals_: dict = {}
    mod = Frame(globals_, "<module>", it.new_store(), globals_, root="<module>")
    it.imports = imports if imports is not None else Importer(it, path, globals_, parse_imported)
    truncated = False
    sink.annotated_lines |= annotated_lines(parsed)
    reanalysed: list = []
    parts: dict = {}  # the hover information each analysis wrote (logged_dims)
    log = logged_dims if records else _run  # the hover table's shares, when there are records
    try:
        scan = [globals_, parsed.tree, False]  # (lookup_writers.py: its top level has not all run yet)
        if isinstance(it.imports, Importer):
            it.imports.scanned.append(scan)
        parts["<module>"] = log(it, lambda: it.exec_module_body(parsed.tree.body, mod))
        # (before any function's analysis reads a registry, or a table another function writes)
        it.global_states.append(global_objects.settle_tables(mark_written(globals_, parsed.tree), it.mutated))
        forget_written(globals_, parsed.tree)
        forget_rebound(globals_, parsed.tree, it.journal)
        scan[2] = True
        if cache is None:
            for f in list(it.functions):
                if functions is not None and f.qualname not in functions:
                    continue
                parts[f.qualname] = log(it, lambda: analyze_function(it, f))
                reanalysed.append(f.qualname)
        else:
            reanalysed = cache.run(it, parsed, analyze_function)
            parts.update(cache.dims_parts())
    except Budget:
        truncated = True
    except RecursionError:
        truncated = True
    except Cancelled:
        raise
    if truncated:
        _not_analysed(it, functions)
    if not records:
        values = []
    elif defer_values:
        values = Pending(_finisher(sink, it.resolve_shape, fixed_symbols(it)))
    else:
        values = sink.finish_values(it.resolve_shape, fixed_symbols(it))
    diagnostics.extend(sink.finish_diagnostics())
    diagnostics.sort(key=lambda d: (d.line, d.col, d.code))
    dims = {}
    if records:
        order = ["<module>"] + [f.qualname for f in it.functions]
        dims = compose_dims(it, [parts[q] for q in order if parts.get(q) is not None])
    stats = {"solver_queries": sum(s.queries for s in it.env.stores), "truncated": truncated,
             "internal_errors": it.internal_errors[:20], "steps": it.steps, "reanalysed": reanalysed,
             "cut_short": list(it.cut_short)}
    for st in it.env.stores:
        st.release()
    if it.env.session is not None:
        it.env.session.release()
    result = AnalysisResult(path, text, diagnostics, values, dims,
                            {f.qualname: span_of(f.node) for f in it.functions}, stats,
                            failures=tuple(it.reporter.failures), entries=entries(it))
    return AnalysisSession(result, it, analyze_function)  # the questions reuse the run


def _finisher(sink: Sink, resolve_shape, fixed: dict):
    """The records' builder: what it needs of the analysis, and no more (not the interpreter)."""
    return lambda: sink.finish_values(resolve_shape, fixed)


def entries(it: Interp) -> tuple:
    """Module-level nn.Module classes with a `forward` and public module-level functions."""
    out = [Entry("class", c.qualname, c.name, c.node.lineno, c.node.col_offset) for c in it.classes
           if c.node is not None and "." not in c.qualname and c.is_module() and c.lookup("forward") is not None]
    out += [Entry("function", f.qualname, f.qualname, f.node.lineno, f.node.col_offset) for f in it.functions
            if f.cls is None and "." not in f.qualname and not f.node.name.startswith("_")]
    return tuple(out)


def with_enclosing(qualnames) -> set:
    """The functions and those they are nested in: a nested function exists once the body that
    defines it has run (`f.<locals>.g` needs `f`'s analysis)."""
    out = set()
    for q in qualnames:
        out.add(q)
        while ".<locals>." in q:
            q = q.rsplit(".<locals>.", 1)[0]
            out.add(q)
    return out


def analyze_function(it: Interp, f: FuncObj, again: bool = False) -> None:
    """The generic analysis of `f`: shapes in terms of its own parameters; once per analysis,
    unless `again` (a question needs the solver state of a function restored from the cache)."""
    if f in it.generic_done and not again:
        return
    it.generic_done.add(f)
    costs.new_function_shares(it)
    it.sink.owner = f.qualname  # what it finds is its own (for per-function capture, sink.py)
    node = f.node
    args = node.args
    store = it.new_store()
    fr = Frame({}, f.qualname, store, f.globals, cls=f.cls, root=f.qualname)
    if node.returns is not None:  # checked at each `return` (contracts.py), in its own names
        fr.declared_return = it.declared_return(f, fr, f.globals, None, span_of(node))
    params = args.posonlyargs + args.args
    is_method = f.cls is not None and not decorated(node, "staticmethod")
    is_init = is_method and node.name == "__init__"
    for i, p in enumerate(params):
        if i == 0 and is_method:
            if is_init:
                fr.env[p.arg] = InstanceObj(f.cls, {}, span_of(node))
            elif decorated(node, "classmethod"):
                fr.env[p.arg] = f.cls
            else:
                # a copy per method: what one method's analysis assigns (`self.fns = None` in
                # `reset`) is not what the next one starts from
                fr.env[p.arg] = own_copy(generic_instance(it, f.cls))
                name_held_sizes(it, f.qualname, p.arg, fr.env[p.arg], node)
            fr.self_obj = fr.env[p.arg]
            continue
        fr.env[p.arg] = param_value(it, f, p, fr, is_init, own=True)
    for p in args.kwonlyargs:
        fr.env[p.arg] = param_value(it, f, p, fr, is_init, own=True)
    if args.vararg is not None:
        fr.env[args.vararg.arg] = OpenArgsV() if is_init else UnknownV("*args")  # (spread.py)
    if args.kwarg is not None:
        fr.env[args.kwarg.arg] = DictV({}, open=True)
    it.param_values[f.qualname] = {k: v for k, v in fr.env.items()}
    it.generic_stores[f.qualname] = store
    saved_limit = it.step_limit
    it.step_limit = min(it.steps + interp_limits.FUNCTION_STEPS, interp_limits.MAX_STEPS)
    try:
        with it.running(f.qualname, store):
            flow = it.exec_block(node.body, fr)
            if f.cls is None and fr.returns:  # a factory: the models it returns run (built.py)
                run_guarded(it, f, fr.facts, lambda: sized_kwargs.run_models(
                    it, f, fr, lambda g: run_built_models(it, f, g, param_value)))
            elif is_init and flow != "raise":  # (flag_defaults.py)
                run_guarded(it, f, fr.facts, lambda: run_at_flag_defaults(it, f, param_value))
    except BaseException as exc:
        # cut short (step budget, cancel): its facts miss the rest of the body, so no question
        # may take them for the function's (questions/common.ensure_generic sees it as not run)
        del it.generic_stores[f.qualname]
        if not isinstance(exc, Budget) or it.steps >= interp_limits.MAX_STEPS:
            raise
        _cut_short(it, f)  # its own share is spent: the functions after it still run
        return
    finally:
        it.step_limit = saved_limit
        global_objects.restore(it.global_states, it.mutated)  # (the next analysis starts afresh)
    it.generic_returns[f.qualname] = list(fr.returns)
    if is_init and params and flow != "raise" and f.cls not in it.generic_instances:
        # (one its defaults do not build is rebuilt: generic_instance)
        inst = fr.env[params[0].arg] if it.as_built else open_default_nones(f, fr.env[params[0].arg])
        if isinstance(inst, InstanceObj) and not it.as_built:
            open_optional_parts(inst, f, lambda i, o, make: construct(it, i, o, False, given=make))
        it.generic_instances[f.cls] = forget_state(f.cls, inst)
        name_unknown_sizes(it, inst)


def _cut_short(it: Interp, f: FuncObj) -> None:
    it.cut_short.append(f.qualname)
    node = f.node
    line = node.lineno  # the `def` line (after any decorators): its name is where the note goes
    text = it.lines[line - 1] if line <= len(it.lines) else ""
    col = text.find(node.name) if node.name in text else 0
    it.sink.diag(Span(line, col, line, col + len(node.name)), "SH004",
                 f"ShapeHint stopped analysing `{f.qualname}` after {interp_limits.FUNCTION_STEPS:,} "
                 "steps (recursion or loops it cannot bound): shapes past that point are not checked")


def _not_analysed(it: Interp, wanted) -> None:
    """The module's whole budget is spent (or Python's recursion limit hit): say so once, on
    line 1, naming the functions left without their own analysis."""
    left = [f.qualname for f in it.functions if f not in it.generic_done
            and (wanted is None or f.qualname in wanted)]
    names = ", ".join(f"`{q}`" for q in left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
    it.sink.owner = "<module>"
    it.sink.diag(Span(1, 0, 1, len(it.lines[0]) if it.lines else 0), "SH004",
                 f"ShapeHint stopped after {it.steps:,} steps in all" +
                 (f": {len(left)} function{'s' if len(left) != 1 else ''} not analysed ({names})" if left else ""))




def _run(it: Interp, run) -> None:
    run()


def annotated_lines(parsed) -> set:
    """Lines that already carry a shape annotation or a shape comment (no inlay hint there)."""
    from .shape_comments import parse_shape_comment
    # annotated assignments are added as they are executed (or restored with their function)
    return {line for line, c in parsed.comments.items() if parse_shape_comment(c) is not None}
