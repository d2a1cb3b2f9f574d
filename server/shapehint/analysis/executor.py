"""Statements and control flow.

`if`: a condition the facts decide runs one arm (and is logged for branch elimination);
otherwise each arm runs under its path condition and the environments are joined (equal
shapes kept, differing ones joined per dimension); an arm that returns or raises leaves its
negation as a fact. `for` over module lists, Sequential, small literal ranges, zip/enumerate
is unrolled; otherwise the body runs once more under a fresh index and the result is joined
with the zero-iteration state (Tensors Fitting Perfectly's treatment of loops).
`assert` and `torch._check` add facts; one that no admissible input satisfies is SH108.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import FALSE, Pred, eq, ge, neg
from ..shapes.values import DictV, ExtRef, IntV, ListV, ModuleV, NoneV, StrV, TensorV, TupleV, UnknownV, Value
from .objects import ClassObj, FuncObj, InstanceObj, OpaqueV
from .result import Related
from .frames import BranchRecord, Frame, add_fact, span_of
from .builtins import CHECKS, falsy_literal
from .guards import reads_rank
from .liveness import exposed_names

MAX_UNROLL = 32
_INDEXED = re.compile(r"^[A-Za-z_]\w*\[-?\d+\]$")  # `window_size[0]` of a `List[int]` parameter


class ExecMixin:
    def exec_block(self, stmts, fr) -> Optional[str]:
        for st in stmts:
            flow = self.exec_stmt(st, fr)
            if flow is not None:
                return flow
        return None

    def exec_stmt(self, st: ast.stmt, fr) -> Optional[str]:
        self.tick()
        fn = getattr(self, "s_" + type(st).__name__, None)
        if fn is None:
            return None
        return fn(st, fr)

    # ---- simple statements --------------------------------------------------------
    def s_Expr(self, st: ast.Expr, fr):
        if self._raises_on_purpose(st.value, fr):
            return "raise"
        self.eval(st.value, fr)

    def _raises(self, st: ast.stmt, fr) -> bool:
        """`raise ...`, `assert False, ...`, `torch._assert(False, ...)`."""
        return isinstance(st, ast.Raise) or isinstance(st, ast.Assert) and falsy_literal(st.test) or \
            isinstance(st, ast.Expr) and self._raises_on_purpose(st.value, fr)

    def _raises_on_purpose(self, node, fr) -> bool:
        """`torch._assert(False, "targets should not be none")`: the code's way to raise, not a
        claim about shapes (no SH108); the flow ends there, as at a `raise`."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            return False
        func = self._safe_eval(node.func, fr)
        k = CHECKS.get(func.path) if isinstance(func, ExtRef) else None
        return k is not None and len(node.args) > k and falsy_literal(node.args[k])

    def s_Pass(self, st, fr):
        return None

    def s_Break(self, st, fr):
        return "break"

    def s_Continue(self, st, fr):
        return "continue"

    def s_Raise(self, st, fr):
        return "raise"

    def s_Return(self, st: ast.Return, fr):
        fr.returns.append(self.eval(st.value, fr) if st.value is not None else NoneV())
        return "return"

    def s_Assign(self, st: ast.Assign, fr):
        for t in st.targets:
            self._learn_unpack_rank(t, st.value, fr)
        v = self.eval(st.value, fr)
        for t in st.targets:
            self.assign(t, v, fr, st)
        self.check_shape_comment(st, v, fr)

    def s_AugAssign(self, st: ast.AugAssign, fr):
        cur = self.eval(st.target, fr) if not isinstance(st.target, ast.Name) else self.e_Name(st.target, fr)
        v = self.binop(type(st.op), cur, self.eval(st.value, fr), st, fr)
        self.assign(st.target, v, fr, st)
        self.check_shape_comment(st, v, fr)

    def s_AnnAssign(self, st: ast.AnnAssign, fr):
        if st.value is None:
            return
        v = self.eval(st.value, fr)
        ann = self.annotation_shape(st.annotation, fr)
        if ann is not None and isinstance(v, TensorV):
            v = self.check_annotation(v, ann[0], ann[1], st, fr)
        self.sink.annotate(st.lineno)
        self.assign(st.target, v, fr, st)

    def check_annotation(self, v: TensorV, ann, dtype, st, fr) -> TensorV:
        """`b: Float[Tensor, "k*64"] = f(a)`: the value must fit; afterwards it has the annotated form."""
        actual = self.resolve(v)
        if ann.rank is None or actual.rank is None:
            return v
        span = span_of(st)
        if ann.rank != actual.rank:
            self.report(fr, span, "SH102", f"the annotation says rank {ann.rank} {ann}, but the value is {actual}", [])
            return v
        for a, b in zip(ann.dims, actual.dims):
            p = eq(a, b)
            ok, core = fr.facts.possible(p)
            if ok is False:
                self.report(fr, span, "SH101", f"the annotation says {ann}, but the value is {actual}",
                            [Related(o[0].line, o[0].col, o[1]) for o in core if o])
                return v
            fr.facts.add(p, (span, f"annotation on line {span.line}"))
        return TensorV(ann, dtype or v.dtype, v.origin, v.contiguous, v.layout_note)

    def s_Assert(self, st: ast.Assert, fr):
        if falsy_literal(st.test):  # `assert False, "unsupported"`: a raise (see _raises_on_purpose)
            return "raise"
        self._learn_guarded_ranks(st.test, True, fr)  # first: then the test itself pins the dimensions
        self.assume(self.eval(st.test, fr), st, fr, "assert", st.test)

    def assume(self, v: Value, node, fr, what: str, test=None) -> None:
        p = self.implied(v)
        if p is None or p.is_true:
            return
        span = span_of(node)
        possible, core = fr.facts.possible(p)
        if possible is False and self._on_defaults(test, fr):
            return  # it fails for the defaults the generic analysis took, not for every call
        if possible is False and self._only_as_a_size(p, fr):
            return
        if possible is False:
            rel = [Related(o[0].line, o[0].col, o[1]) for o in core if o and o[0].line != span.line]
            self.report(fr, span, "SH108", self._assert_message(what, test, p, fr) + self._core_note(core), rel)
            if not fr.caught:
                self.failed_asserts.add(span.line)
                self.failures.append((fr.qualname, span, p, "SH108", "assertion always fails", fr.context))
            return
        add_fact(fr.facts, p, (span, f"{what} on line {span.line}"))

    def _only_as_a_size(self, p, fr) -> bool:
        """`assert self.num_chunks_before == 0` on `config.lsh_num_chunks_before`: a value the
        analysis cannot see is a symbol >= 1 (it is a size nearly everywhere), but when that bound
        is what makes an assertion fail, the value may be any int: no error."""
        opaque = p.symbols() & self.opaque_names
        if not opaque:
            return False
        relaxed = self.new_store()  # (the analysis's limits and Z3 session: a cancel stops it too)
        relaxed.lower, relaxed.upper = dict(fr.facts.lower), dict(fr.facts.upper)
        for name in opaque:
            relaxed.lower[name] = -(2 ** 31)
        for f in fr.facts.facts:
            relaxed.add(f.pred, f.origin)
        return relaxed.possible(p)[0] is not False

    def _on_defaults(self, test, fr) -> bool:
        """Whether `test` reads a parameter that the function's own analysis took at its default
        (`def f(x, arg_types=None): assert arg_types is not None`): callers pass others. In a
        call, one the caller's open `**kwargs` may set (`Encoder(**kwargs)` passing them on to
        `AttentionLayers(depth=None, ...)`: Frame.open_defaults)."""
        if test is None or fr.context and not fr.open_defaults:
            return False
        fn = self.function_named(fr.qualname)
        if fn is None or not fn.defaults:
            return False
        names = fr.open_defaults if fr.context else fn.defaults
        return any(isinstance(n, ast.Name) and n.id in names and fr.env.get(n.id) is fn.defaults[n.id]
                   for n in ast.walk(test))

    def _assert_message(self, what: str, test, p, fr) -> str:
        if test is None:
            return f"this {what} fails for every admissible input: {p} is impossible"
        known = []
        for n in ast.walk(test):
            if isinstance(n, ast.Name) and isinstance(fr.env.get(n.id), IntV) and n.id not in [k for k, _ in known]:
                known.append((n.id, fr.env[n.id].expr))
        for n in ast.walk(test):
            if isinstance(n, (ast.Attribute, ast.Call)) and self.source(n).endswith(("shape", ")")) and len(known) < 4:
                src = self.source(n)
                val = self._safe_eval(n, fr)
                if isinstance(val, TupleV) and all(isinstance(i, IntV) for i in val.items):
                    known.append((src, "(" + ", ".join(str(i.expr) for i in val.items) + ")"))
                elif isinstance(val, IntV):
                    known.append((src, val.expr))
        vals = ", ".join(f"{k} = {v}" for k, v in known[:4])
        return f"`{what} {ast.unparse(test)}` fails for every admissible input" + (f" ({vals} here)" if vals else "")

    def _core_note(self, core) -> str:
        lines = sorted({o[0].line for o in core if o})
        return f" given line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}" if lines else ""

    # ---- assignment ---------------------------------------------------------------
    def assign(self, target: ast.AST, v: Value, fr, stmt: Optional[ast.AST]) -> None:
        if isinstance(target, ast.Name):
            fr.env[target.id] = v
            if fr.record and self.observe and stmt is not None:
                self.sink.record(span_of(target), target.id, fr.qualname, v, fr.context, fr.is_entry, True,
                                 getattr(fr, "iter_label", ""))
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(v, len(target.elts), fr)
            star = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)), None)
            if items is not None and star is not None:
                n_after = len(target.elts) - star - 1
                items = items[:star] + [ListV(items[star:len(items) - n_after])] + items[len(items) - n_after:]
            if items is None or len(items) != len(target.elts):
                items = [UnknownV("unpack")] * len(target.elts)
            for t, item in zip(target.elts, items):
                self.assign(t.value if isinstance(t, ast.Starred) else t, item, fr, stmt)
                if isinstance(t, ast.Name) and isinstance(item, IntV) and fr.context == "":
                    self.name_symbol(item.expr, t.id, fr)
                elif isinstance(t, ast.Name) and isinstance(item, OpaqueV) and fr.context == "":
                    self.name_symbol(Expr.sym(item.path), t.id, fr)  # `wh, ww = window_size[0], window_size[1]`
            return
        if isinstance(target, ast.Attribute):
            obj = self.eval(target.value, fr)
            if isinstance(obj, InstanceObj):
                self.mutated(obj)
                obj.attrs[target.attr] = v
                if isinstance(v, (ModuleV, InstanceObj)) and (v.span is None or fr.foreign == ""):
                    # (where a layer was built, for messages: not a write the call memo minds;
                    # a copied construction keeps the spans it made, Interp.span_log)
                    self.span_log.append((v, v.span))
                    v.span = span_of(target) if not fr.foreign else v.span
                if fr.record and self.observe and stmt is not None and isinstance(v, (TensorV, ModuleV)):
                    self.sink.record(span_of(target), self.source(target), fr.qualname, v, fr.context,
                                     fr.is_entry, False)
            return
        if isinstance(target, ast.Subscript):
            obj = self.eval(target.value, fr)
            idx = self.eval(target.slice, fr)
            if isinstance(obj, (ListV, DictV)):
                self.mutated(obj)
            if isinstance(obj, ListV) and obj.items is not None and isinstance(idx, IntV) and idx.expr.value is not None:
                i = idx.expr.value
                if -len(obj.items) <= i < len(obj.items):
                    obj.items[i] = v
            elif isinstance(obj, ListV) and obj.items:
                # a write at an index the analysis cannot follow (`self.heads[self.index - 1] = y`,
                # MONAI's deep supervision filling placeholders): any item may now be v
                obj.items, obj.elem = None, self.join_values(obj.items + [v])
            elif isinstance(obj, DictV):
                if isinstance(idx, StrV) and idx.value is not None:
                    obj.items[idx.value] = v
                else:
                    obj.open = True
            elif isinstance(obj, TensorV):
                self.call_rule("Tensor.__setitem__", [obj, idx, v], {}, fr, target, "indexed assignment")

    def unpack(self, v: Value, n: int, fr) -> Optional[list]:
        if isinstance(v, (TupleV, ListV)) and v.items is not None:
            return list(v.items)
        if isinstance(v, ModuleV) and v.children is not None:
            return list(v.children)
        items = self.iterate(v, fr)
        return items

    def name_symbol(self, e: Expr, name: str, fr) -> None:
        """`B, T, C = x.size()`: the program's names replace default names like `x.shape[0]`."""
        syms = e.symbols()
        if len(syms) != 1 or e != Expr.sym(next(iter(syms))) or name == "_":
            return
        old = next(iter(syms))
        if ".shape[" in old or old.startswith("?") or _INDEXED.match(old):
            table = self.sink.renames.setdefault(fr.qualname, {})
            if old not in table and name not in table.values():
                table[old] = name
                info = self.dims.get(old)
                if info is not None:
                    self.dims[name] = type(info)(name, info.origin + f", named `{name}`", info.facts)

    # ---- control flow ----------------------------------------------------------------
    def s_If(self, st: ast.If, fr):
        flow = self._if(st, fr)
        if flow is None and not st.orelse and st.body and self._raises(st.body[-1], fr):
            # a guard (`if x.dim() != 4: raise ValueError(...)`): learned after the `if`, so the
            # branch itself is judged (Q3) as the code stands, not as decided by its own raise
            if self._learn_guarded_ranks(st.test, False, fr):
                # the test can now be read (`x.shape != (B, 4)`): the path that gets on has it false
                p = self.truth(self._safe_eval(st.test, fr))
                if p is not None:
                    add_fact(fr.facts, neg(p), (span_of(st.test), f"condition on line {st.lineno}"))
        return flow

    def _if(self, st: ast.If, fr):
        opt = self._optional_test(st.test, fr)
        if opt is not None:
            return self._if_optional(st, fr, *opt)
        v = self.eval(st.test, fr)
        self.note_omitted(fr, v)
        p = self.truth(v)
        implied = self.implied(v)  # holds on the true arm even when the condition is unknown
        if p is None and implied is not None and fr.facts.possible(implied)[0] is False:
            p = FALSE  # what the condition would imply is impossible: it is false
        decided = fr.facts.decide(p) if p is not None else None
        if not fr.foreign:  # another file's `if`: this file's questions do not answer for it
            ranks = self._rank_outcomes(st.test, fr) if p is None and reads_rank(st.test) else None
            self.branches.append(BranchRecord(st, fr.qualname, p, decided, fr.context, list(fr.facts.facts),
                                              fr.root, fr.facts, fr.assumes_default, ranks))
        if decided is True:
            return self.exec_block(st.body, fr)
        if decided is False:
            return self.exec_block(st.orelse, fr)
        origin = (span_of(st.test), f"condition on line {st.lineno}")
        env0 = dict(fr.env)
        dead0 = fr.dead
        marks0 = fr.return_marks
        fr.facts.push()
        if implied is not None:
            add_fact(fr.facts, implied, origin)
        f1 = self.exec_block(st.body, fr)
        env1 = dict(fr.env)
        self._close_arm(fr, marks0)
        dead1, fr.dead = fr.dead, dead0
        fr.env.clear()
        fr.env.update(env0)
        fr.facts.push()
        if p is not None:
            add_fact(fr.facts, neg(p), origin)
        f2 = self.exec_block(st.orelse, fr)
        env2 = dict(fr.env)
        self._close_arm(fr, marks0)
        fr.dead = dead0 or (dead1 and fr.dead)
        dead1, dead2 = f1 in ("return", "raise"), f2 in ("return", "raise")
        if dead1 and dead2:
            return "return"
        fr.env.clear()
        if dead1:
            fr.env.update(env2)
            if p is not None:
                self._continue_past(fr, f1, neg(p), origin)
        elif dead2:
            fr.env.update(env1)
            if implied is not None:
                self._continue_past(fr, f2, implied, origin)
        else:
            fr.env.update(self.join_envs(env1, env2, fr.facts))
        return None

    @staticmethod
    def _close_arm(fr, marks0: int) -> None:
        """The end of an undecided `if`'s arm: its facts go, with those of the paths inside it
        that got past an arm which returned."""
        while fr.return_marks > marks0:
            fr.facts.pop()
            fr.return_marks -= 1
        fr.facts.pop()

    @staticmethod
    def _continue_past(fr, flow: str, pred, origin) -> None:
        """After an undecided `if` whose one arm ended the function, the path that gets on has
        the other arm's condition. Past a `raise` that holds for every admissible input. Past a
        `return` it holds only for the rest of this call (the return values are joined): in a
        call its fact goes when the call returns (calls.py), else the caller would believe that
        no input takes the early return (`if x.shape[1] == 4: return ...` in a helper, then
        `assert x.shape[1] == 4` in the caller)."""
        if flow == "return" and fr.context:
            fr.facts.push()
            fr.return_marks += 1
        add_fact(fr.facts, pred, origin)

    @staticmethod
    def _optional_test(test, fr):
        """`mask is not None` / `targets is None` on an optional tensor parameter of the generic
        analysis: (name, whether the test is true when the tensor is given)."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
                and isinstance(test.ops[0], (ast.Is, ast.IsNot))
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
            return None
        v = fr.env.get(test.left.id)
        if not (isinstance(v, TensorV) and v.optional):
            return None
        return test.left.id, isinstance(test.ops[0], ast.IsNot)

    def _if_optional(self, st: ast.If, fr, name: str, given_when_true: bool):
        """Both sides are analysed (the given side sees a tensor of unknown shape), but what
        follows continues from the side without it: an unknown mask would otherwise turn every
        later shape unknown, and the absent case is the one the generic analysis describes."""
        given_body, absent_body = (st.body, st.orelse) if given_when_true else (st.orelse, st.body)
        if not fr.foreign:
            self.branches.append(BranchRecord(st, fr.qualname, None, None, fr.context, list(fr.facts.facts),
                                              fr.root, fr.facts, fr.assumes_default))
        env0, dead0, opt = dict(fr.env), fr.dead, fr.env[name]
        marks0 = fr.return_marks
        fr.facts.push()
        f_given = self.exec_block(given_body, fr)
        env_given = dict(fr.env)
        self._close_arm(fr, marks0)
        fr.dead = dead0
        fr.env.clear()
        fr.env.update(env0)
        none = NoneV()
        fr.env[name] = none
        f_absent = self.exec_block(absent_body, fr)
        dead_given, dead_absent = f_given in ("return", "raise"), f_absent in ("return", "raise")
        if dead_given and dead_absent:
            return "return"
        if dead_absent:
            fr.dead = dead0
            fr.env.clear()
            fr.env.update(env_given)
        else:
            # what follows took the tensor to be omitted: a later decision speaks only for the
            # calls that omit it (questions/branches.py)
            fr.assumes_default = True
            if fr.env.get(name) is none:
                fr.env[name] = opt  # a later `if mask is not None` is undecided again
        return None

    def join_envs(self, a: dict, b: dict, facts=None) -> dict:
        out = {}
        for k in a.keys() | b.keys():
            if k in a and k in b:
                out[k] = a[k] if a[k] is b[k] else self.join_values([a[k], b[k]], facts)
            else:
                out[k] = a.get(k, b.get(k))
        return out

    def s_For(self, st: ast.For, fr):
        it = self.eval(st.iter, fr)
        items = self.iterate(it, fr)
        if items is not None and len(items) <= MAX_UNROLL:
            saved = getattr(fr, "iter_label", "")
            try:
                for k, item in enumerate(items):
                    fr.iter_label = f"iteration {k}"
                    self.assign(st.target, item, fr, st)
                    flow = self.exec_block(st.body, fr)
                    if flow in ("return", "raise"):
                        return flow
                    if flow == "break":
                        return None
            finally:
                fr.iter_label = saved
            return self.exec_block(st.orelse, fr)
        # the element is bound in each pass: its facts (`0 <= i <= n - 2` for `range(n - 1)`)
        # belong to the iterations, not to what follows a loop that may not run
        return self._loop_once(st, fr, lambda: self.assign(st.target, self.loop_element(it, items, fr), fr, st),
                               self.trip_count(it))

    def s_While(self, st: ast.While, fr):
        p = self.truth(self.eval(st.test, fr))
        if p is not None and fr.facts.decide(p) is False:
            return self.exec_block(st.orelse, fr)
        return self._loop_once(st, fr, lambda: None)

    def _loop_once(self, st, fr, bind, trips=None) -> Optional[str]:
        """Zero or more iterations: run the body until what it reads at its head is stable
        (liveness.py; 2 passes at most).

        Lists that grow in the body (`outs.append(h)`) become lists of unknown length whose
        element is the join of all their items (those from before the loop too), as long as
        `trips` passes make them when that is known.
        They grow in place, so the environment does not show it: the next pass runs with them
        already of unknown length (else a later iteration's `len(outs) >= n` would be decided
        by the first iteration's length)."""
        env0 = dict(fr.env)
        exposed = exposed_names(st)
        lists = {id(v): (v, len(v.items)) for v in env0.values() if isinstance(v, ListV) and v.items is not None}
        added: dict = {}  # id -> (list, length before the loop, what one pass appended)
        cur = env0
        # A loop that may run no iteration is an undecided arm: what its body requires (a
        # layer's in_features) and its errors hold only for the inputs that make it run.
        may_skip = trips is None or not fr.facts.entails(ge(trips, 1))
        dead0 = fr.dead
        for _ in range(2):
            fr.env.clear()
            fr.env.update(cur)
            if may_skip:
                marks0 = fr.return_marks
                fr.facts.push()
            bind()
            flow = self.exec_block(st.body, fr)
            after = dict(fr.env)
            if may_skip:
                self._close_arm(fr, marks0)
                fr.dead = dead0
            grew = False
            for key, (lst, n0) in lists.items():
                if key not in added and lst.items is not None and len(lst.items) > n0:
                    self.mutated(lst)
                    added[key] = (lst, n0, lst.items[n0:])
                    lst.elem = self.join_values(lst.items)  # every item: those before the loop too
                    lst.items, lst.length = None, None
                    grew = True
            joined = self.join_envs(env0, after, fr.facts) if flow not in ("return", "raise") else env0
            stable = not grew and all(joined.get(k) is cur.get(k) for k in exposed)
            cur = joined
            if stable:
                break
        fr.env.clear()
        fr.env.update(cur)
        for lst, n0, items in added.values():
            lst.length = Expr.const(n0) + len(items) * trips if trips is not None else None
        return None

    def trip_count(self, it) -> Optional[Expr]:
        from .calls import RangeV
        if isinstance(it, RangeV) and it.step.value == 1:
            return it.stop - it.start
        if isinstance(it, (ListV, ModuleV)) and it.length is not None:  # `[Block(d) for _ in range(depth)]`
            return it.length
        return None

    def s_With(self, st: ast.With, fr):
        for item in st.items:
            v = self.eval(item.context_expr, fr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UnknownV("context manager") if not isinstance(v, TensorV) else v, fr, st)
        return self.exec_block(st.body, fr)

    s_AsyncWith = s_With

    def s_Try(self, st: ast.Try, fr):
        """A handler that gets on (`except RuntimeError: y = x`) makes the body an undecided arm:
        what the body requires holds only where it did not raise, and an error the handler
        catches is not one (`Frame.caught`). Handlers that end (re-raise, return) leave the body
        as the only way on, with its facts. Each handler runs from the body's end (where the
        exception came is unknown), as an arm of its own."""
        continuing = [h for h in st.handlers if not (h.body and (self._raises(h.body[-1], fr)
                                                                 or isinstance(h.body[-1], ast.Return)))]
        catches = any(_catches_shape_errors(h.type) for h in continuing)
        env0, dead0, marks0 = dict(fr.env), fr.dead, fr.return_marks
        if continuing:
            fr.facts.push()
        fr.caught += catches
        try:
            flow = self.exec_block(st.body, fr)
        finally:
            fr.caught -= catches
        if flow is None:
            flow = self.exec_block(st.orelse, fr)
        env_body, body_dead = dict(fr.env), fr.dead and not dead0  # (a caught error ends the body)
        if continuing:
            self._close_arm(fr, marks0)
            fr.dead = dead0
        ways_on = [env_body] if flow not in ("return", "raise") and not body_dead else []
        for h in st.handlers:
            fr.env.clear()
            fr.env.update(env_body)
            if h.name:
                fr.env[h.name] = UnknownV("exception")
            hmarks, hdead = fr.return_marks, fr.dead
            fr.facts.push()
            hflow = self.exec_block(h.body, fr)
            if h in continuing and hflow not in ("return", "raise"):
                ways_on.append(dict(fr.env))
            self._close_arm(fr, hmarks)
            fr.dead = hdead
        fr.env.clear()
        if not ways_on:
            fr.env.update(env_body)
            fin = self.exec_block(st.finalbody, fr)
            return fin or flow or "raise"
        env = ways_on[0]
        for other in ways_on[1:]:
            env = self.join_envs(env, other, fr.facts)
        fr.env.update(env)
        return self.exec_block(st.finalbody, fr)

    s_TryStar = s_Try

    # ---- definitions and imports ---------------------------------------------------------
    def s_FunctionDef(self, st: ast.FunctionDef, fr):
        qual = st.name if fr.qualname == "<module>" else f"{fr.qualname}.<locals>.{st.name}"
        f = FuncObj(st, qual, fr.globals, module_path=self.path)
        f.defaults = self.eval_defaults(st, fr)
        fr.env[st.name] = f
        self.functions.append(f)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, st: ast.ClassDef, fr):
        bases = [self.eval(b, fr) for b in st.bases]
        qual = st.name if fr.qualname == "<module>" else f"{fr.qualname}.{st.name}"
        is_dc = any(_is_dataclass_deco(d) for d in st.decorator_list)
        cls = ClassObj(st.name, qual, st, bases, {}, is_dataclass=is_dc, module_path=self.path)
        body_fr = Frame({}, qual, fr.facts, fr.globals, record=False)
        for item in st.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                f = FuncObj(item, f"{qual}.{item.name}", fr.globals, cls, module_path=self.path)
                f.defaults = self.eval_defaults(item, fr)
                cls.attrs[item.name] = f
                self.functions.append(f)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                dv = self.eval(item.value, fr) if item.value is not None else None
                if dv is not None and _is_field_call(item.value):
                    dv = self._field_default(item.value, fr)
                cls.fields.append((item.target.id, dv))
                if dv is not None:
                    cls.attrs[item.target.id] = dv
            elif isinstance(item, ast.ClassDef):
                self.s_ClassDef(item, body_fr)
                cls.attrs[item.name] = body_fr.env[item.name]
            else:
                self.exec_stmt(item, body_fr)
                for k, v in body_fr.env.items():
                    cls.attrs.setdefault(k, v)
        fr.env[st.name] = cls
        self.classes.append(cls)

    def _field_default(self, call: ast.Call, fr) -> Optional[Value]:
        for kw in call.keywords:
            if kw.arg == "default":
                return self.eval(kw.value, fr)
        return None

    def eval_defaults(self, st: ast.FunctionDef, fr) -> dict:
        a = st.args
        out = {}
        pos = a.posonlyargs + a.args
        for arg, d in zip(pos[len(pos) - len(a.defaults):], a.defaults):
            out[arg.arg] = self._safe_eval(d, fr)
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                out[arg.arg] = self._safe_eval(d, fr)
        return out

    def _safe_eval(self, node, fr) -> Value:
        """`node`'s value without recording it (a second look at code that already ran)."""
        rec, fr.record = fr.record, False
        try:
            return self.eval(node, fr)
        finally:
            fr.record = rec

    def s_Import(self, st: ast.Import, fr):
        for alias in st.names:
            mod = self.import_module(alias.name, 0)
            if alias.asname:
                fr.env[alias.asname] = mod if mod is not None else ExtRef(alias.name)
            else:
                top = alias.name.split(".")[0]
                fr.env[top] = self.import_module(top, 0) or ExtRef(top)

    def s_ImportFrom(self, st: ast.ImportFrom, fr):
        modname = st.module or ""
        mod = self.import_module(modname, st.level or 0)
        for alias in st.names:
            if alias.name == "*":
                if mod is not None and hasattr(mod, "attrs"):
                    fr.env.update(mod.attrs)
                continue
            name = alias.asname or alias.name
            if mod is not None and hasattr(mod, "attrs"):
                fr.env[name] = mod.attrs.get(alias.name, self.import_module(f"{modname}.{alias.name}", st.level or 0)
                                             or UnknownV(alias.name))
            else:
                fr.env[name] = ExtRef(f"{modname}.{alias.name}" if modname else alias.name)

# what a shape error raises (RuntimeError; IndexError, ValueError for some), and what catches it
_SHAPE_ERROR_CATCHERS = {"RuntimeError", "IndexError", "ValueError", "Exception", "BaseException"}


def _catches_shape_errors(t) -> bool:
    if t is None:
        return True  # a bare `except:`
    if isinstance(t, ast.Tuple):
        return any(_catches_shape_errors(e) for e in t.elts)
    name = t.attr if isinstance(t, ast.Attribute) else t.id if isinstance(t, ast.Name) else None
    return name in _SHAPE_ERROR_CATCHERS


def _is_dataclass_deco(d: ast.AST) -> bool:
    node = d.func if isinstance(d, ast.Call) else d
    return (isinstance(node, ast.Name) and node.id == "dataclass") or \
        (isinstance(node, ast.Attribute) and node.attr == "dataclass")


def _is_field_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "field") or
        (isinstance(node.func, ast.Attribute) and node.func.attr == "field"))
