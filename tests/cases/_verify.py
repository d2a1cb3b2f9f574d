"""Ground truth for the case programs: run each one with torch and check its inline expectations.

A tool, not a test:  python tests/cases/_verify.py [FILE...]   (default: tests/cases/*.py and
shared/examples/*.py). Exit status 1 when anything disagrees.

How it works. The file's module-level code runs under a line tracer (sys.settrace). When a
statement that binds name targets completes in a frame of the case file, the tracer records the
shape of every tensor bound and checks it against the line's `# expect:`. Symbols in an
expectation are bound, in increasing priority, from: the `# verify:` bindings of the run, the
constructor arguments of `self` (ints without defaults keep their parameter name), the shapes of
the function's tensor arguments at entry (`x.shape[0]`), and the frame's int locals (`B, T, C =
x.size()`). Expectations inside a method assume the constructor defaults; an instance built with
other values (an int, a bool, a None, a config dataclass differing from its defaults) is not
checked there. Each `# entry: CALLABLE; inputs: x=[B,3,H,W]` is then called once per `# verify:`
binding (or once, when its inputs are concrete) with random inputs (`:long` -> randint(0, 2),
`:bool` -> all True).

Error markers (`E[...]`, `bug:`) must be the line (any case-file frame of the traceback) where the
exception happens, except `E[SH110]` (a declared shape Python does not check): there the value
the line binds or returns must not fit its jaxtyping annotation in some run; `W[SH201]`/`W[SH203]` must see a Python warning on that line. The report also
lists expectations never checked and executed tensor assignments without an expectation.
"""
from __future__ import annotations

import dataclasses
import glob
import inspect
import os
import sys
import traceback
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

from _expect import evaluate, fmt, parse_case  # noqa: E402

NODEFAULT = object()


class Shape:
    def __init__(self, shape):
        self.shape = tuple(shape)


class Tracer:
    def __init__(self, case):
        self.case = case
        self.path = os.path.abspath(case.path)
        self.bindings = {}
        self.ctor = {}          # id(module) -> {param: (value, default)}
        self.args = {}          # frame -> {name: Shape}
        self.pending = {}       # frame -> stmt line
        self.checked = {}       # line -> count of successful checks
        self.skipped = set()
        self.failures = []
        self.missing = set()
        self.declared = Declarations(case.text)
        self.broken = set()     # lines whose declared shape (SH110) the value did not have

    # -- tracing --
    def global_trace(self, frame, event, arg):
        if os.path.abspath(frame.f_code.co_filename) != self.path:
            return None
        self.on_call(frame)
        return self.local_trace

    def on_call(self, frame):
        code = frame.f_code
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        loc = frame.f_locals
        self.args[frame] = {n: Shape(loc[n].shape) for n in names if isinstance(loc.get(n), torch.Tensor)}
        me = loc.get("self")
        if (code.co_name == "__init__" and isinstance(me, nn.Module)
                and getattr(type(me).__init__, "__code__", None) is code):
            try:
                sig = inspect.signature(type(me).__init__)
            except (TypeError, ValueError):
                return
            info = {}
            for p in list(sig.parameters.values())[1:]:
                if p.name in loc:
                    d = p.default if p.default is not inspect.Parameter.empty else NODEFAULT
                    info[p.name] = (loc[p.name], d)
            self.ctor[id(me)] = (me, info)  # the module is kept alive so that ids are not reused

    def local_trace(self, frame, event, arg):
        if event == "line":
            stmt = self.case.stmt_span.get(frame.f_lineno)
            prev = self.pending.get(frame)
            if prev is not None and (stmt != prev or frame.f_lineno == prev):
                self.record(frame, prev)
                self.pending.pop(frame, None)
            if stmt is not None:
                self.pending[frame] = stmt
        elif event == "return":
            if frame.f_lineno in self.declared.returns and arg is not None:
                self.check_declared(frame, frame.f_lineno, arg, self.declared.returns[frame.f_lineno])
            prev = self.pending.pop(frame, None)
            if prev is not None and self._returned_normally(frame):
                self.record(frame, prev)
            self.args.pop(frame, None)
        elif event == "exception":
            self.pending.pop(frame, None)
            frame.f_locals  # noqa: B018
        return self.local_trace

    @staticmethod
    def _returned_normally(frame):
        return sys.exc_info()[0] is None or True

    # -- checking --
    def env_for(self, frame):
        env = dict(self.bindings)
        me = frame.f_locals.get("self")
        nondefault = False
        if isinstance(me, nn.Module) and id(me) in self.ctor and self.ctor[id(me)][0] is me:
            for name, (value, default) in self.ctor[id(me)][1].items():
                if default is NODEFAULT:
                    if isinstance(value, int) and not isinstance(value, bool):
                        env[name] = value
                    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                        for f, v in vars(value).items():  # `config.n_embd` style names
                            if isinstance(v, int) and not isinstance(v, bool):
                                env[f"{name}__{f}"] = v
                        try:
                            nondefault |= value != type(value)()
                        except TypeError:
                            pass
                elif isinstance(value, (int, bool)) or default is None or value is None:
                    if value != default or type(value) is not type(default):
                        nondefault = True
                elif value is not default:
                    try:
                        nondefault |= bool(value != default)
                    except Exception:  # noqa: BLE001
                        nondefault = True
        for name, shp in self.args.get(frame, {}).items():
            for i, d in enumerate(shp.shape):
                env[f"{name}__shape_{i}"] = d
        if frame.f_code.co_name != "<module>":
            for k, v in frame.f_locals.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    env[k] = v
        return env, nondefault

    def check_declared(self, frame, line, value, specs):
        """The value against a jaxtyping declaration (`specs`: one dims string, or one per tuple
        item), with the names bound by the function's annotated parameters at entry."""
        binding = {}
        fn = self.declared.params.get(frame.f_code.co_firstlineno, {})
        for name, shp in self.args.get(frame, {}).items():
            if name in fn:
                _bind(fn[name], shp.shape, binding)
        values = [value] if len(specs) == 1 else list(value) if isinstance(value, tuple) else None
        if values is None or len(values) != len(specs):
            self.broken.add(line)
            return
        for spec, v in zip(specs, values):
            if spec is not None and isinstance(v, torch.Tensor) and not _bind(spec, tuple(v.shape), binding):
                self.broken.add(line)

    def record(self, frame, stmt):
        if stmt in self.declared.locals:
            name, spec = self.declared.locals[stmt]
            if isinstance(frame.f_locals.get(name), torch.Tensor):
                self.check_declared(frame, stmt, frame.f_locals[name], [spec])
        names = [n for n in self.case.targets.get(stmt, []) if n != "_"]
        tensors = {n: tuple(frame.f_locals[n].shape) for n in names
                   if isinstance(frame.f_locals.get(n), torch.Tensor)}
        if not tensors:
            return
        exp = self.case.expectations.get(stmt)
        if exp is None:
            self.missing.add(stmt)
            return
        env, nondefault = self.env_for(frame)
        if nondefault:
            self.skipped.add(stmt)
            return
        for name, actual in tensors.items():
            want = exp.shapes.get(name)
            if want is None:
                self.failures.append(f"line {stmt}: tensor {name} {list(actual)} has no expectation")
                continue
            try:
                vals = [d if d == "?" else evaluate(d, env) for d in want]
            except Exception as exc:  # noqa: BLE001
                self.failures.append(f"line {stmt}: {name}: cannot evaluate {fmt(want)}: {exc!r}")
                continue
            ok = len(vals) == len(actual) and all(v == "?" or v == a for v, a in zip(vals, actual))
            if ok:
                self.checked[stmt] = self.checked.get(stmt, 0) + 1
            else:
                self.failures.append(f"line {stmt}: {name}: expected {fmt(want)} = {vals}, "
                                     f"torch gives {list(actual)}  (bindings {self.bindings})")


def make_input(dims, dtype, env):
    shape = [evaluate(d, env) for d in dims]
    if dtype == "long":
        return torch.randint(0, 2, shape)
    if dtype == "bool":
        return torch.ones(shape, dtype=torch.bool)
    return torch.randn(shape)


class Declarations:
    """The jaxtyping dims strings of a case file: annotated variables (line -> (name, dims)),
    return annotations (line of each `return` -> [dims per item]) and the parameters' (the
    function's first line -> {param: dims})."""

    def __init__(self, text):
        import ast
        self.locals, self.returns, self.params = {}, {}, {}
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _dims(node.annotation):
                self.locals[node.lineno] = (node.target.id, _dims(node.annotation))
            if isinstance(node, ast.FunctionDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                self.params[first] = {a.arg: _dims(a.annotation) for a in node.args.args if _dims(a.annotation)}
                ret = node.returns
                items = ret.slice.elts if isinstance(ret, ast.Subscript) and getattr(ret.value, "id", "") in \
                    ("tuple", "Tuple") and isinstance(ret.slice, ast.Tuple) else [ret]
                specs = [_dims(i) for i in items]
                if any(specs):
                    for r in ast.walk(node):
                        if isinstance(r, ast.Return):
                            self.returns[r.lineno] = specs


def _dims(ann):
    """`Float[Tensor, "B T 64"]` -> "B T 64"; None for anything else."""
    import ast
    if isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 2:
        spec = ann.slice.elts[1]
        if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
            return spec.value
    return None


def _bind(spec, shape, binding):
    """Whether `shape` fits the dims string, binding its names (jaxtyping's rules, no `*`/`...`)."""
    toks = spec.split()
    if any(t.startswith("*") or t == "..." for t in toks):
        return True
    if len(toks) != len(shape):
        return False
    for tok, size in zip(toks, shape):
        if tok == "_" or tok.startswith("_"):
            continue
        if tok.isidentifier():
            if binding.setdefault(tok, size) != size:
                return False
            continue
        try:
            want = eval(tok, {"__builtins__": {}}, dict(binding))  # `4`, `N+M`
        except Exception:  # noqa: BLE001  (a name not bound yet: nothing to compare)
            continue
        if want != size:
            return False
    return True


def verify(path):
    case = parse_case(path)
    tr = Tracer(case)
    problems = list(case.errors)
    raised = []     # (run label, set of case-file lines in the traceback, exception)
    warned = set()
    mod = types.ModuleType("__case__")
    mod.__file__ = path
    sys.modules["__case__"] = mod
    torch.manual_seed(0)

    def run(label, fn):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            sys.settrace(tr.global_trace)
            try:
                fn()
            except Exception as exc:  # noqa: BLE001
                lines = {fs.lineno for fs in traceback.extract_tb(exc.__traceback__)
                         if os.path.abspath(fs.filename) == tr.path}
                raised.append((label, lines, exc))
            finally:
                sys.settrace(None)
        for w in ws:
            if os.path.abspath(w.filename) == tr.path:
                warned.add(w.lineno)

    code = compile(case.text, path, "exec")
    run("module", lambda: exec(code, mod.__dict__))
    for call, inputs in case.entries:
        syms = set()
        for dims, _ in inputs.values():
            for d in dims:
                from _expect import symbols
                syms |= symbols(d)
        runs = case.bindings if syms else [{}]
        if syms and not case.bindings:
            problems.append(f"entry {call}: symbolic inputs but no `# verify:` bindings")
        for b in runs:
            tr.bindings = dict(b)
            torch.manual_seed(0)
            args = {n: make_input(d, t, b) for n, (d, t) in inputs.items()}
            run(f"{call} {b}", lambda: eval(call, mod.__dict__)(**args))
        tr.bindings = {}

    problems += list(dict.fromkeys(tr.failures))
    err_markers = [m for m in case.markers if m.kind in ("E", "bug")]
    err_lines = {m.line for m in err_markers}
    for label, lines, exc in raised:
        if not lines & err_lines:
            problems.append(f"{label}: unexpected {type(exc).__name__} at lines {sorted(lines)}: "
                            f"{str(exc).splitlines()[0] if str(exc) else ''}")
    for m in err_markers:
        if m.code == "SH110" and m.line in tr.broken:
            continue  # a declaration Python does not check: the value seen did not fit it
        if not any(m.line in lines for _, lines, _ in raised):
            problems.append(f"line {m.line}: marked {m.kind}[{m.code}] but no exception there")
    for m in case.markers:
        if m.kind == "W" and m.code in ("SH201", "SH203") and m.line not in warned:
            problems.append(f"line {m.line}: marked W[{m.code}] but torch gave no warning there")
    first_err = min(err_lines) if err_lines else None
    for line in sorted(tr.missing):
        if first_err is None or line < first_err:
            problems.append(f"line {line}: tensor assignment without `# expect:`")
    unchecked = [ln for ln in case.expectations if ln not in tr.checked]
    for ln in sorted(unchecked):
        why = "only in non-default instances" if ln in tr.skipped else "never executed"
        problems.append(f"line {ln}: expectation never checked ({why})")
    sys.modules.pop("__case__", None)
    return problems, sum(tr.checked.values()), len(case.expectations)


def main(argv):
    files = argv or sorted(f for f in glob.glob(os.path.join(HERE, "*.py"))
                           if not os.path.basename(f).startswith("_"))
    if not argv:
        files += sorted(glob.glob(os.path.join(ROOT, "shared", "examples", "*.py")))
    bad = 0
    for f in files:
        problems, nchecks, nexp = verify(f)
        rel = os.path.relpath(f, ROOT)
        status = "ok " if not problems else "BAD"
        print(f"{status} {rel}: {nexp} expectations, {nchecks} checks")
        for p in problems:
            print(f"     {p}")
        bad += bool(problems)
    print(f"{len(files) - bad}/{len(files)} files verified")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
