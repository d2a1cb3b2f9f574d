"""Ranks learned from the code: a component of the interpreter (`Interp.ranks`).

An unannotated parameter is a tensor of unknown rank; unpacking its shape (`B, T, C = x.shape`)
and rank guards every path passes (`assert x.dim() == 4`, `if x.shape != (B, 4): raise ...`,
patterns in guards.py) teach it one. A test over a rank still unknown (`if x.dim() not in (3, 4)`)
is evaluated for each rank instead, for Q3 (`rank_outcomes`).
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Optional

from ..shapes.shape import Shape
from ..shapes.values import BoolV, IntV, NoneV, StarSizeV, TensorV
from .frames import span_of
from .guards import OPAQUE, SOME, rank_guards, rank_outcomes, rank_tested_names, shape_equalities


class Ranks:
    # `_safe_eval(node, fr)`: a value without recording it; `truth(v)`: its predicate, if any;
    # `param_values`: function -> {param: Value} of its own analysis
    _USES = ("_safe_eval", "truth", "resolve", "learn_rank", "param_values", "sides_shared", "arm_segment")

    def learn_unpack_rank(self, target, value, fr) -> None:
        if not isinstance(target, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in target.elts):
            return
        base = None
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            base = value.value
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "size" \
                and not value.args:
            base = value.func.value
        if base is None:
            return
        t = self._safe_eval(base, fr)
        if isinstance(t, TensorV):
            s = self.resolve(t)
            # fewer names than the axes named on both sides of the variadic segment, but not
            # fewer than either side: the sides share axes (`x.shape[2]` read, then a Linear met
            # x's last axis), which the shape cannot say: the rank stays open rather than the
            # sides being counted twice (fewer names than one side has axes surely fail: SH111)
            n = len(target.elts)
            if s.rank is None and not s.suffix and self.sides_shared(s.star):
                # a segment cut where a tensor's two named ends may share axes: a value holding
                # only its front (`m = x.sum(-1)` before `x.shape[2]` was read) may have fewer
                # axes than are named there, so a count of names teaches it nothing
                return
            if s.rank is None and not max(len(s.dims), len(s.suffix)) <= n < len(s.dims) + len(s.suffix):
                self.learn_rank(t, len(target.elts), span_of(value))

    def unpack_sizes(self, size: StarSizeV, n: int, span) -> Optional[list]:
        """`batch_size, seq_length = input_shape`, where `input_shape = input_ids.size()` of a
        rank not known yet: the rank is the number of names, as with `B, T = x.shape`
        (`learn_unpack_rank`); the sizes, else None (too few names for the sizes known)."""
        probe = TensorV(size.shape)  # (the segment is learned by its name: every tensor with it learns)
        s = self.resolve(probe)
        if s.rank is None:
            if n < len(s.dims) + len(s.suffix):
                return None  # (or the two sides share axes: the rank stays open)
            self.learn_rank(probe, n, span)
            s = self.resolve(probe)
        return [IntV(d, span) for d in s.dims] if s.rank == n else None

    def learn_guarded_ranks(self, test, holds: bool, fr) -> bool:
        """`assert x.dim() == 4`, or past `if x.shape != (B, 4): raise ...` (guards.py): every
        input that gets on has that rank, so a tensor of unknown rank learns it as unpacking
        teaches it (`learn_unpack_rank`) — only where every path gets here: not inside one arm
        of an undecided `if`, and not after a path returned (`if x.dim() == 2: return ...` before
        `if x.dim() != 3: raise ...` handles rank 2 too: learned shapes apply to every value of
        the tensor, earlier ones included). Whether some rank was learned."""
        if fr.facts.branching or fr.returns or fr.after_return:
            return False
        learned = False
        for base, rank in rank_guards(test, holds) + self._equal_tails(test, holds, fr):
            t = self._safe_eval(base, fr)
            if isinstance(t, TensorV):
                s = self.resolve(t)
                if s.rank is None and len(s.dims) + len(s.suffix) <= rank:
                    self.learn_rank(t, rank, span_of(test))
                    learned = True
        return learned

    def own_arm_copies(self, test, fr, own: tuple, holds: bool) -> None:
        """An undecided test of a tensor's rank: in each arm (`holds`: the test's truth there) the
        tensor gets a segment of its own, first told the rank the test implies, so what one arm
        learns of its rank is not the other arm's (Environment.arm_segment); past the `if`, a name
        neither arm reassigned is the tensor itself again (`own`: name -> it, ids of the copies)."""
        originals, copies = own
        made = {}
        for name in rank_tested_names(test):
            t = originals.get(name, fr.env.get(name))
            if isinstance(t, TensorV) and self.resolve(t).star is not None:
                originals[name] = t
                s = t.shape
                copy = dataclasses.replace(t, shape=Shape(s.dims, self.arm_segment(s.star), s.suffix))
                copies.add(id(copy))
                fr.env[name] = made[name] = copy
        self.learn_arm_ranks(test, holds, made)

    def learn_arm_ranks(self, test, holds: bool, copies: dict) -> None:
        """In one arm of an undecided test of ranks (`if mask is not None and len(mask.shape) ==
        4:`), the rank the test implies there (`holds`: its truth in the arm), taught to the arm's
        own copy of each tensor it names (`copies`: name -> copy, own_arm_copies): the
        arm's operations on it know its axes, while the other arm, and the path past the `if`,
        hold the tensor with its own segment, untouched."""
        for base, rank in rank_guards(test, holds):
            t = copies.get(base.id) if isinstance(base, ast.Name) else None
            if isinstance(t, TensorV):
                s = self.resolve(t)
                if s.rank is None and len(s.dims) + len(s.suffix) <= rank:
                    self.learn_rank(t, rank, span_of(test))

    def _equal_tails(self, test, holds: bool, fr) -> list:
        """[(tensor expression, rank)] from `a.shape[ka:] == b.shape[kb:]` where one side's rank
        is known: the other has as many axes past its `kb`."""
        out = []
        for (a, ka), (b, kb) in shape_equalities(test, holds):
            for (x, kx), (y, ky) in (((a, ka), (b, kb)), ((b, kb), (a, ka))):
                t = self._safe_eval(x, fr)
                r = self.resolve(t).rank if isinstance(t, TensorV) else None
                if r is not None and r > kx:  # an empty tail says only "at most"
                    out.append((y, ky + r - kx))
        return out

    def rank_outcomes(self, test, fr) -> Optional[dict]:
        """What a test over an unknown rank can come out as (guards.rank_outcomes), for Q3."""
        def rank_base(node):
            t = self._safe_eval(node, fr)
            if not isinstance(t, TensorV):
                return None
            s = self.resolve(t)
            return (s.rank, None) if s.rank is not None else (len(s.dims) + len(s.suffix), s.star)

        def value(node):
            if any(isinstance(n, ast.Call) for n in ast.walk(node)):
                return OPAQUE  # not run twice (a call's own `if`s would be recorded again)
            v = self._safe_eval(node, fr)
            if isinstance(v, NoneV):
                return None
            if isinstance(v, IntV) and v.expr.is_const:
                return v.expr.value
            if isinstance(v, TensorV):
                return OPAQUE if v.optional else SOME
            p = self.truth(v)
            if p is not None and (p.is_true or p.is_false):
                return SOME if not isinstance(v, (BoolV, IntV)) else p.is_true
            return OPAQUE
        got = rank_outcomes(test, rank_base, value)
        if got is not None:
            # the analysed function's parameters that have this segment, as they are now: a guard
            # later on may teach them a rank, and the witnesses are of inputs as they stand here
            got["params"] = {}
            for name, t in (self.param_values.get(fr.root) or {}).items():
                if isinstance(t, TensorV) and self.resolve(t).star == got["segment"]:
                    got["params"][name] = t.shape
        return got
