"""What the device-run runner records, loaded by runner.py from its path (see its docstring):
the user's source mapped to statements, their targets and qualnames (`SourceMap`), and the
line tracer that records the shapes each statement assigns (`Recorder`). Standard library only;
torch is handed in by the runner. The real-model benchmark reuses both, so a change here changes
its ground truth too."""
import ast
import json


# ---- the user's source: statements, their targets, qualnames --------------------------------

def _names_in_target(node, out):
    if isinstance(node, ast.Name):
        out.append((node.id, node.lineno, node.col_offset))
    elif isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            _names_in_target(e, out)
    elif isinstance(node, ast.Starred):
        _names_in_target(node.value, out)


def _stmt_targets(stmt):
    out = []
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            _names_in_target(t, out)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        if not (isinstance(stmt, ast.AnnAssign) and stmt.value is None):
            _names_in_target(stmt.target, out)
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        _names_in_target(stmt.target, out)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                _names_in_target(item.optional_vars, out)
    header = [stmt] if not hasattr(stmt, "body") else [getattr(stmt, f) for f in ("test", "iter", "items")
                                                       if hasattr(stmt, f)]
    for part in header:  # walrus targets in the statement (or the compound statement's header)
        for sub in ast.walk(part) if isinstance(part, ast.AST) else []:
            if isinstance(sub, ast.NamedExpr):
                _names_in_target(sub.target, out)
    return out


class SourceMap:
    """line -> key line of the innermost simple statement (or compound header) covering it."""

    def __init__(self, source):
        tree = ast.parse(source)
        self.stmt_of, self.targets, self.qualnames = {}, {}, {}
        self._visit(tree.body, "")

    def _visit(self, body, prefix):
        for stmt in body:
            end = stmt.end_lineno
            blocks = [b for b in ("body", "orelse", "finalbody", "handlers") if getattr(stmt, b, None)]
            if blocks and not isinstance(stmt, ast.Try):
                first = min(getattr(stmt, b)[0].lineno for b in blocks)
                end = max(stmt.lineno, first - 1)
            for ln in range(stmt.lineno, end + 1):
                self.stmt_of[ln] = stmt.lineno
            self.targets[stmt.lineno] = _stmt_targets(stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = prefix + stmt.name
                first_line = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
                self.qualnames[first_line] = q
                self.qualnames.setdefault(stmt.lineno, q)
                inner = q + (".<locals>." if not isinstance(stmt, ast.ClassDef) else ".")
                self._visit(stmt.body, inner)
                continue
            for b in ("body", "orelse", "finalbody"):
                if getattr(stmt, b, None):
                    self._visit(getattr(stmt, b), prefix)
            for h in getattr(stmt, "handlers", []) or []:
                self.stmt_of[h.lineno] = h.lineno
                self.targets[h.lineno] = []
                self._visit(h.body, prefix)
            for case in getattr(stmt, "cases", []) or []:
                self._visit(case.body, prefix)


# ---- the recorder -------------------------------------------------------------------------

class Recorder:
    def __init__(self, path, smap, torch, limits):
        self.path, self.smap, self.torch, self.limits = path, smap, torch, limits
        self.calls = {}  # (qualname, context) -> list of invocation dicts
        self.records = 0
        self.dropped = 0
        self.entry = None

    def describe(self, v):
        T = self.torch
        if isinstance(v, T.Tensor):
            return {"shape": [int(d) for d in v.shape], "dtype": str(v.dtype).replace("torch.", "")}
        if isinstance(v, int) and not isinstance(v, bool):
            return {"int": v}
        return None

    def qualname(self, code):
        q = getattr(code, "co_qualname", None)
        return q or self.smap.qualnames.get(code.co_firstlineno, code.co_name)

    def context(self, frame):
        f = frame.f_back
        while f is not None:
            if f.f_code.co_filename == self.path:
                return "%s:%d" % (self.qualname(f.f_code), f.f_lineno)
            f = f.f_back
        return "entry:%s" % (self.entry or "<import>")

    def global_trace(self, frame, event, arg):
        code = frame.f_code
        if event != "call" or code.co_filename != self.path:
            return None
        if code.co_name.startswith("<") and code.co_name != "<module>":
            return None  # comprehensions, lambdas, genexprs: their names are not user targets
        return self.start_frame(frame)

    def start_frame(self, frame):
        code = frame.f_code
        qual = "<module>" if code.co_name == "<module>" else self.qualname(code)
        nargs = code.co_argcount + code.co_kwonlyargcount
        args = {}
        if code.co_name != "<module>":
            for name in code.co_varnames[:nargs]:
                d = self.describe(frame.f_locals.get(name))
                if d is not None:
                    args[name] = d
        inv = self.invocation(qual, self.context(frame), args, self.receiver(frame, code))
        state = {"stmt": None, "raised": False}
        recorder = self

        def local_trace(fr, event, arg):
            if event == "line":
                key = recorder.smap.stmt_of.get(fr.f_lineno, fr.f_lineno)
                if key != state["stmt"]:
                    recorder.finish(fr, state, inv)
                    state["stmt"], state["raised"] = key, False
            elif event == "exception":
                state["raised"] = True
            elif event == "return":
                recorder.finish(fr, state, inv)
                state["stmt"] = None
            return local_trace
        return local_trace

    @staticmethod
    def receiver(frame, code):
        """Which object a method runs on: two instances of one class (nine Inception blocks, each
        called from the same line) bind their constructor's sizes differently, so their calls
        are not one invocation even when the argument shapes agree."""
        if code.co_argcount and code.co_varnames[0] == "self":
            return id(frame.f_locals.get("self"))
        return None

    def invocation(self, qual, context, args, receiver=None):
        key = (qual, context)
        invs = self.calls.get(key)
        if invs is None:
            if len(self.calls) >= self.limits["max_contexts"]:
                return None
            invs = self.calls[key] = []
        sig = json.dumps([args, receiver], sort_keys=True)
        for inv in invs:
            if inv["sig"] == sig:
                inv["count"] += 1
                return inv
        if len(invs) >= self.limits["max_invocations"]:
            self.dropped += 1
            return None
        inv = {"sig": sig, "args": args, "count": 1, "lines": {}, "entry": self.entry}
        invs.append(inv)
        return inv

    def finish(self, frame, state, inv):
        key = state["stmt"]
        if key is None or inv is None or state["raised"]:
            return
        loc = frame.f_locals
        for name, line, col in self.smap.targets.get(key, ()):
            d = self.describe(loc.get(name))
            if d is None:
                continue
            seen = inv["lines"].setdefault((line, col, name), [])
            if d in seen:
                continue
            if len(seen) >= self.limits["max_shapes"] or self.records >= self.limits["max_records"]:
                self.dropped += 1
                continue
            seen.append(d)
            self.records += 1

    def to_json(self):
        out = []
        for (qual, ctx), invs in self.calls.items():
            for i, inv in enumerate(invs):
                if not inv["lines"]:
                    continue  # nothing assigned (class bodies, __init__ without tensors): noise
                lines = [{"line": ln, "col": col, "name": nm, "observed": obs}
                         for (ln, col, nm), obs in sorted(inv["lines"].items())]
                out.append({"function": qual, "context": ctx, "invocation": i, "count": inv["count"],
                            "entry": inv["entry"], "args": inv["args"], "lines": lines})
        return out
