"""Control flow: `if`, loops, `with`, `try`.

`if`: a condition the facts decide runs one arm (and is logged for branch elimination);
otherwise each arm runs under its path condition and the environments are joined (equal
shapes kept, differing ones joined per dimension); an arm that raises leaves its negation as a
fact, one that returns leaves it for the rest of the call (`_continue_past`). `for` over
module lists, Sequential, small literal ranges, zip/enumerate is unrolled; otherwise the body
runs until what it reads is stable and the result is joined with the zero-iteration state
(Tensors Fitting Perfectly's treatment of loops), as an undecided arm when it may run no
iteration. A `try` whose handler gets on is an undecided arm too.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import FALSE, ge, neg
from ..shapes.values import ListV, ModuleV, NoneV, TensorV, UnknownV
from .optional_imports import import_handler
from .maybe_none import narrowed
from .flags import arm_gets_on, flag_join, off_default_arm, quiet_arm_ends, quietly
from . import (arm_dicts, arm_lists, bounded_loops, first_pass, grown_lists, layer_tails, list_choices, loop_counts,
               loop_heads, own_entries, stage_passes)
from .frames import BranchRecord, add_fact, keep_shared_facts, span_of
from .divisibility import learn as learn_divisible
from .objects import InstanceObj, RangeV
from .guards import reads_rank
from .liveness import exposed_names
from .optional_args import drop_returns, fed_back, optional_test, run_decided_arm
from .selection import selected_join
from .arm_alignment import aligned_arms
from .choices import conditioned

MAX_UNROLL = 32


class ControlFlow:
    """`if`, loops, `try`, `with` (a component of the interpreter)."""

    _USES = ("eval", "exec_block", "_own_arm_copies", "_learn_guarded_ranks", "_raises", "_rank_outcomes", "_safe_eval", "assign",
             "arm_segment", "branches", "implied", "iterate", "join_values", "loop_element", "mutated", "mutation_log", "note_omitted",
             "resolve", "truth", "open_arm", "close_arm", "join_arms", "forget_arm", "interp", "int_value")

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
        opt = optional_test(st.test, fr, lambda node: self._decided(node, fr))
        if opt is not None:
            return self._if_optional(st, fr, *opt)
        v = self.eval(st.test, fr)
        self.note_omitted(fr, v)
        p = self.truth(v)
        implied = self.implied(v)  # holds on the true arm even when the condition is unknown
        if p is None and implied is not None and fr.facts.possible(implied, core=False)[0] is False:
            p = FALSE  # what the condition would imply is impossible: it is false
        decided = fr.facts.decide(p) if p is not None else None
        if not fr.foreign:  # another file's `if`: this file's questions do not answer for it
            ranks = self._rank_outcomes(st.test, fr) if p is None and reads_rank(st.test) else None
            self.branches.append(BranchRecord(st, fr.qualname, p, decided, fr.context, list(fr.facts.facts),
                                              fr.root, fr.facts, fr.assumes_default, ranks))
        if decided is not None:
            return run_decided_arm(self.interp, st, st.body if decided else st.orelse, fr, self.exec_block,
                                   self.join_values)
        origin = (span_of(st.test), f"condition on line {st.lineno}")
        own = ({}, set()) if reads_rank(st.test) else None  # (name -> tensor, ids of its copies)
        env0, dead0 = dict(fr.env), fr.dead
        me = fr.self_obj if isinstance(fr.self_obj, InstanceObj) else None
        attrs0, log0 = (dict(me.attrs), len(self.mutation_log)) if me is not None else (None, 0)
        mark = self.open_arm()
        if own is not None:
            self._own_arm_copies(st.test, fr, own, True)
        off = off_default_arm(v)  # (the arm only a flag's other value takes: errors not reported)
        boxes = arm_dicts.before(env0)
        lists = arm_lists.lists_before(env0)
        facts1, facts2 = [], []
        f1, died1 = self.in_arm(fr, (implied,), origin,
                                lambda: narrowed(st.test, True, fr, lambda: self.exec_block(st.body, fr), True, self.mutated),
                                off is True, facts1)
        ends1 = quiet_arm_ends(fr, died1, off is True)
        learned1 = self.close_arm(mark)
        env1, attrs1, lists1, dicts1 = self.put_back(fr, env0, me, attrs0, log0, lists, boxes)
        mark = self.open_arm()
        if own is not None:
            self._own_arm_copies(st.test, fr, own, False)
        f2, died2 = self.in_arm(fr, (None if p is None else neg(p),), origin,
                                lambda: narrowed(st.test, False, fr, lambda: self.exec_block(st.orelse, fr), True, self.mutated),
                                off is False, facts2)
        ends2 = quiet_arm_ends(fr, died2, off is False)
        learned2 = self.close_arm(mark)
        env2 = dict(fr.env)
        fr.dead = dead0 or (died1 and died2)
        dead1, dead2 = f1 in ("return", "raise") or ends1, f2 in ("return", "raise") or ends2
        if not (dead1 or died1 or dead2 or died2):
            keep_shared_facts(fr.facts, facts1, facts2)
        self.join_arms([(learned1, not (dead1 or died1)), (learned2, not (dead2 or died2))])
        if attrs1 is not None or me is not None and self._wrote(me, log0):
            self._join_attrs(me, None if dead1 else attrs1 if attrs1 is not None else attrs0,
                             None if dead2 else dict(me.attrs), fr, off, p)
        on1, on2 = arm_gets_on(dead1, died1, off is True), arm_gets_on(dead2, died2, off is False)
        arm_dicts.join(boxes, dicts1, on1, on2, self.mutated, self.join_values)
        arm_lists.join_lists(lists, lists1, on1, on2, self.mutated, self.join_values)
        if dead1 and dead2:
            return "return"
        for name, t in (own[0].items() if own else ()):
            for env in (env1, env2):
                if id(env.get(name)) in own[1]:
                    env[name] = t  # untouched by the arm: the tensor itself again
        fr.env.clear()
        if dead1:
            fr.env.update(env2)
            if p is not None:
                self._continue_past(fr, f1, neg(p), origin)
                if f1 == "raise":
                    learn_divisible(self.interp, fr, neg(p), st)
        elif dead2:
            fr.env.update(env1)
            if implied is not None:
                self._continue_past(fr, f2, implied, origin)
                if f2 == "raise":
                    learn_divisible(self.interp, fr, implied, st)
        else:
            fr.env.update(self.join_envs(env1, env2, fr.facts, off, p))
        if off is not None:
            # a rank only the flag's other arm needs (`B, H, W, C = x.shape`) is not the input's
            # past the `if` (it served the join: arms that agree keep their shape)
            self.forget_arm(learned1 if off else learned2, learned2 if off else learned1)
        return None

    def _wrote(self, me, log0: int) -> bool:
        return any(o is me for o in self.mutation_log[log0:])

    def put_back(self, fr, env0: dict, me, attrs0, log0: int, lists: list, boxes=None) -> tuple:
        """After an undecided branch's first arm: what it left in the names, `self`'s attributes,
        the lists (arm_lists.py) and, given `boxes`, the dicts (arm_dicts.py), put back as they were."""
        env1 = dict(fr.env)
        fr.env.clear()
        fr.env.update(env0)
        out = env1, self._restore_attrs(me, attrs0, log0), arm_lists.after_first_arm(lists, self.mutated)
        return out if boxes is None else (*out, arm_dicts.after_first_arm(boxes, self.mutated))

    def _restore_attrs(self, me, attrs0, log0: int):
        """After an undecided `if`'s first arm: `self`'s attributes as that arm left them (None when
        it wrote none), and back as they were for the other arm — both arms write the one
        instance, and the last writer must not win (`self.key = nn.Linear(...)` if an argument
        is given, else `None`: the instance holds one or the other)."""
        if me is None or not self._wrote(me, log0):
            return None
        attrs1 = dict(me.attrs)
        self.mutated(me)
        me.attrs.clear()
        me.attrs.update(attrs0)
        return attrs1

    def _join_attrs(self, me, attrs1, attrs2, fr, off=None, test=None) -> None:
        """`self`'s attributes past the `if`: those of the arms that get on, joined (`off`: the
        arm only a flag's other value takes, flags.flag_join)."""
        arms = [a for a in (attrs1, attrs2) if a is not None]
        if not arms:
            return
        joined = dict(arms[0])
        if len(arms) == 2:
            for k in set(attrs1) | set(attrs2):
                v1, v2 = attrs1.get(k), attrs2.get(k)
                joined[k] = v1 if v1 is v2 else self._join_two(v1, v2, fr.facts, off, test)
        self.mutated(me)
        me.attrs.clear()
        me.attrs.update(joined)

    def in_arm(self, fr, conds, origin, run, quiet: bool = False, arm_facts: Optional[list] = None):
        """`run()` as one arm of an undecided branch: under `conds` (None ones skipped), with its
        facts gone after it and `fr.dead` as it was; `quiet`: its errors not reported (an arm
        only a flag's other value takes, flags.py). (what run returned, whether the arm died).
        `arm_facts` gets the facts the arm learned past its conditions, unless a path in it
        returned (those past that return hold only for the paths that got on)."""
        dead0, marks0 = fr.dead, fr.return_marks
        fr.facts.push()
        for c in conds:
            if c is not None:
                add_fact(fr.facts, c, origin)
        n0, depth0 = len(fr.facts.facts), fr.facts.depth
        out = quietly(fr, quiet, run)
        if arm_facts is not None and fr.facts.depth == depth0:
            arm_facts.extend(fr.facts.facts[n0:])
        self._close_arm(fr, marks0)
        died, fr.dead = fr.dead, dead0
        return out, died

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

    def _decided(self, node, fr) -> Optional[bool]:
        p = self.truth(self._safe_eval(node, fr))
        return fr.facts.decide(p) if p is not None else None

    def _if_optional(self, st: ast.If, fr, name: str, given_when_true: bool, whole: bool = False):
        """Both sides are analysed (the given side sees a tensor of unknown shape), but what
        follows continues from one: an unknown mask would otherwise turn every later shape
        unknown. The side without it, unless that side gets on only with another optional
        tensor given (`if input_ids is not None: ... else: inputs_embeds.size()`, or a `raise`
        when neither is given): the code's input is then the one it tests first, and the path
        that gets on has it given (issue 28, cause 8). `whole`: optional_args._guarded_test."""
        given_body, absent_body = (st.body, st.orelse) if given_when_true else (st.orelse, st.body)
        if not fr.foreign and not whole:
            self.branches.append(BranchRecord(st, fr.qualname, None, None, fr.context, list(fr.facts.facts),
                                              fr.root, fr.facts, fr.assumes_default))
        env0, dead0, opt, n0 = dict(fr.env), fr.dead, fr.env[name], len(fr.returns)
        fr.env[name] = opt.given()
        f_given, _ = self.in_arm(fr, (), None, lambda: self._if(st, fr) if whole else self.exec_block(given_body, fr))
        env_given, given_returns = dict(fr.env), (n0, len(fr.returns))
        fr.env.clear()
        fr.env.update(env0)
        fr.env[name] = none = NoneV()
        f_absent = self.exec_block(absent_body, fr)
        dead_given, dead_absent = f_given in ("return", "raise"), f_absent in ("return", "raise")
        if dead_given and dead_absent:
            return "return"
        if dead_absent or not dead_given and _takes_another_given(env0, fr.env, name):
            if not dead_absent:
                fr.assumes_default = True  # (a later decision speaks only for the calls that give it)
            fr.dead = dead0
            fr.env.clear()
            fr.env.update(env_given)
        else:
            # what follows took the tensor to be omitted: a later decision speaks only for the
            # calls that omit it (questions/branches.py), and so does the call's result
            fr.assumes_default = True
            drop_returns(fr, *given_returns)
            now = fr.env.get(name)
            if now is none:
                fr.env[name] = opt  # a later `if mask is not None` is undecided again
            elif not dead_given and isinstance(now, TensorV) and isinstance(env_given.get(name), TensorV) \
                    and fed_back(self.interp, name, fr):
                # the absent side made its own (`if bias is None: bias = zeros(1, h, t, t)`) and the
                # function hands it back: callers feed theirs in again, whatever its shape
                fr.env[name] = self.join_values([env_given[name], now])
        return None

    def join_envs(self, a: dict, b: dict, facts=None, off=None, test=None) -> dict:
        """`test`: the undecided condition whose true arm left `a` (selection.py)."""
        out = {}
        for k in a.keys() | b.keys():
            if k in a and k in b:
                out[k] = a[k] if a[k] is b[k] else self._join_two(a[k], b[k], facts, off, test)
            else:
                out[k] = a.get(k, b.get(k))
        return out

    def _join_two(self, a, b, facts, off, test):
        """The join of what the arms of an undecided `if` (condition `test`, true for `a`'s arm)
        leave in one name or attribute."""
        if test is not None and isinstance(a, TensorV) and isinstance(b, TensorV):
            a, b = aligned_arms(test, a, b, self.resolve(a), self.resolve(b), facts) or (a, b)
        picked = selected_join(test, a, b, self.int_value) if a is not None and b is not None else None
        return picked if picked is not None else conditioned(flag_join(self.join_values, a, b, off, facts), a, b, test)

    def s_For(self, st: ast.For, fr):
        it = self.eval(st.iter, fr)
        if layer_tails.splits(it, st):  # its known first layers, then some number of one
            return layer_tails.run_loop(self, st, fr, it)
        if bounded_loops.runs(it, st):  # at most N known items: pass by pass, stopping after any
            return bounded_loops.run_loop(self, st, fr, it)
        if stage_passes.takes(it, st, fr):  # a constructor's stages one a pass, or a loop over them
            return stage_passes.run(self, st, fr, it)
        if first_pass.peels(it, st):  # `i == 0` in the body: the first pass on its own
            return first_pass.run_loop(self, st, fr, it)
        items = self.iterate(it, fr)
        if items is not None and len(items) <= MAX_UNROLL:
            return self._unrolled(st, fr, items)
        alts = list_choices.alternatives(it, self.iterate, fr) if items is None else None
        if alts is not None and all(len(a) <= MAX_UNROLL for a in alts) and list_choices.writes_only_names(st):
            return self._loop_each(st, fr, alts)
        # the element is bound in each pass: its facts (`0 <= i <= n - 2` for `range(n - 1)`)
        # belong to the iterations, not to what follows a loop that may not run
        return own_entries.run_loop(self.interp, it, lambda bind: self._loop_once(st, fr, bind, self.trip_count(it)),
                                    lambda: self.assign(st.target, self.loop_element(it, items, fr), fr, st))

    def _unrolled(self, st: ast.For, fr, items: list) -> Optional[str]:
        saved, counting = getattr(fr, "iter_label", ""), loop_counts.enter(fr, st, None)
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
            loop_counts.leave(fr, counting)
        return self.exec_block(st.orelse, fr)

    def _loop_each(self, st: ast.For, fr, alts: list) -> None:
        """A loop over one of several containers (list_choices.py): unrolled once per option as
        an undecided arm; past it, the join of what the options that get on leave in each name
        (every name the body assigns unknown when none does)."""
        env0 = dict(fr.env)

        def run(items):
            fr.env.clear()
            fr.env.update(env0)
            self._unrolled(st, fr, items)
            return dict(fr.env)

        envs = [env for _, env in list_choices.run_each(self, fr, [lambda a=a: run(a) for a in alts])]
        fr.env.clear()
        if not envs:
            fr.env.update(env0)
            for name in list_choices.stored_names(st):
                fr.env[name] = UnknownV("loop")
            return None
        joined = envs[0]
        for env in envs[1:]:
            joined = self.join_envs(joined, env, fr.facts)
        fr.env.update(joined)
        return None

    def s_While(self, st: ast.While, fr):
        p = self.truth(self.eval(st.test, fr))
        if p is not None and fr.facts.decide(p) is False:
            return self.exec_block(st.orelse, fr)
        return own_entries.run_loop(self.interp, None, lambda bind: self._loop_once(st, fr, bind), lambda: None)

    def _loop_once(self, st, fr, bind, trips=None) -> Optional[str]:
        """Zero or more iterations: run the body until what it reads at its head is stable
        (liveness.py, loop_heads.py; 2 passes at most).

        Lists and layer containers that grow in the body (`outs.append(h)`,
        `self.stages.append(...)`: any the environment reaches, grown_lists.reachable) become
        ones of unknown length whose element is the join of all their items (those from before
        the loop too), as long as `trips` passes make them when that is known.
        They grow in place, so the environment does not show it: the next pass runs with them
        already of unknown length (else a later iteration's `len(outs) >= n` would be decided
        by the first iteration's length)."""
        env0 = dict(fr.env)
        exposed = exposed_names(st)
        lists, heads = grown_lists.reachable(env0), grown_lists.local_heads(env0)
        added: dict = {}  # id -> (list, length before the loop, what one pass appended)
        cur = env0
        # A loop that may run no iteration is an undecided arm: what its body requires (a
        # layer's in_features) and its errors hold only for the inputs that make it run.
        may_skip = trips is None or not fr.facts.entails(ge(trips, 1))
        dead0, counting = fr.dead, loop_counts.enter(fr, st, trips, joined=True)
        for _ in range(2):
            read = loop_heads.start_pass(self, fr.env, cur, exposed)
            if may_skip:
                marks0 = fr.return_marks
                fr.facts.push()
            bind()
            flow = self.exec_block(st.body, fr)
            after = dict(fr.env)
            if may_skip:
                self._close_arm(fr, marks0)
                fr.dead = dead0
            grew = grown_lists.note_growth(lists, added, self.mutated, self.join_values)
            grew = grown_lists.erased_locals(env0, st, heads, added, fr.facts.depth + may_skip) or grew
            joined = self.join_envs(env0, after, fr.facts) if flow not in ("return", "raise") else env0
            stable = loop_heads.settled(self, grew, joined, cur, exposed, read)
            prev, cur = cur, joined
            if stable:
                break
        loop_counts.leave(fr, counting)
        fr.env.clear()
        fr.env.update(cur)
        grown_lists.settle_all(st, added.values(), env0, trips, stable, stable or grown_lists.numbers_only(prev, cur, exposed))
        return None

    def trip_count(self, it) -> Optional[Expr]:
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
        imports_fail = import_handler(st.handlers) in continuing  # (one that re-raises: the code needs it)
        dead0, marks0 = fr.dead, fr.return_marks
        if continuing:
            fr.facts.push()
        fr.caught += catches
        fr.imports_may_fail += imports_fail
        try:
            flow = self.exec_block(st.body, fr)
        finally:
            fr.caught -= catches
            fr.imports_may_fail -= imports_fail
        handlers = st.handlers
        if flow == "raise" and fr.import_failed is not None:  # an import the world lacks: one handler
            handlers = [h for h in (import_handler(handlers),) if h is not None]
            fr.import_failed = None if handlers else fr.import_failed
        if flow is None:
            flow = self.exec_block(st.orelse, fr)
        env_body, body_dead = dict(fr.env), fr.dead and not dead0  # (a caught error ends the body)
        if continuing:
            self._close_arm(fr, marks0)
            fr.dead = dead0
        ways_on = [env_body] if flow not in ("return", "raise") and not body_dead else []
        for h in handlers:
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


# what a shape error raises (RuntimeError; IndexError, ValueError for some), and what catches it
_SHAPE_ERROR_CATCHERS = {"RuntimeError", "IndexError", "ValueError", "Exception", "BaseException"}


def _catches_shape_errors(t) -> bool:
    if t is None:
        return True  # a bare `except:`
    if isinstance(t, ast.Tuple):
        return any(_catches_shape_errors(e) for e in t.elts)
    name = t.attr if isinstance(t, ast.Attribute) else t.id if isinstance(t, ast.Name) else None
    return name in _SHAPE_ERROR_CATCHERS


def _takes_another_given(env0: dict, env: dict, name: str) -> bool:
    """Whether a path (env, from env0) got on only by taking an optional tensor other than
    `name` to be given (it read it as a tensor: Frame.expr_arms, evaluator.e_Attribute)."""
    return any(k != name and isinstance(v, TensorV) and v.optional and _given_copy(env.get(k), v)
               for k, v in env0.items())


def _given_copy(t, opt: TensorV) -> bool:
    """`t` is `opt` as given (not a new value the path bound to its name)."""
    return isinstance(t, TensorV) and not t.optional and t.origin is opt.origin and t.origin is not None
