"""The reporter of one analysis: turns what fails into diagnostics and failure records.

A failed precondition (`failed`) is a provable error: a typed `Failure` the questions read (a
migration's clash, a hole no value fills), and a diagnostic (`report`) placed where the user can
act on it — the callee's line, or the caller's when only the caller's shapes make it fail, or
the call into another file. Diagnostics go to the sink; both go through the journal.
"""
from __future__ import annotations

import os
from typing import Optional

from ..ops.context import OpFailed
from ..shapes.shape import FALSE
from ..shapes.values import Span
from . import codes
from .frames import Frame
from .literal_contexts import PREFIX
from .result import Failure, Related
from .sink import Sink


class Reporter:
    FIXED = ("sink",)

    def __init__(self, sink: Sink):
        self.sink = sink
        self.journal = j = sink.journal
        self.failures: list[Failure] = j.log("failure")  # the provable errors
        self.failed_asserts: set[int] = j.tally("failed-assert")  # lines of assertions that always fail

    def assertion_failed(self, frame: Frame, span: Span, pred) -> None:
        """An assertion no admissible input passes (its diagnostic is reported apart)."""
        self.failed_asserts.add(span.line)
        self.failures.append(Failure(frame.qualname, span, pred, "SH108", "assertion always fails", frame.context))

    def report(self, frame: Frame, span: Optional[Span], code: str, message: str, related: list) -> None:
        if span is None:
            return
        if codes.severity(code) == "error":
            if frame.dead:
                return  # vacuous: no admissible input reaches this line
            frame.dead, frame.died_of = True, ""  # (contracts.check_unpack says when it is a rank's)
            if frame.caught:
                return  # a handler catches it and gets on (controlflow.s_Try)
            if frame.context and PREFIX in frame.context:
                # a construction context that assumes a configuration literal: the assumption is
                # the analysis's, not the code's, and the model's run there takes its methods'
                # int defaults as values (a `rope_k_repeat: int = 0` real callers never leave
                # gave a view with a size 0, an error in working code): its shapes, no errors
                return
            if frame.context and frame.facts.depth > frame.entry_depth:
                # a call's failure only on a path the callee could not decide for the call's
                # arguments (`if len(reduced_axes) > 0:` in einops): inputs that take the other
                # path avoid it; the callee's own analysis reports a line that always fails
                return
        rel = [r for r in related if r is not None]
        if frame.foreign:
            # the failing line is in another file: report it against this file's call
            if not frame.call_sites:
                return
            rel = [Related(span.line, span.col, message, frame.foreign)]
            span = frame.call_sites[0]
            message = f"this call fails in {os.path.basename(frame.foreign)}, line {rel[0].line}: {message}"
            rel += [Related(c.line, c.col, "the layer is created here") for c in frame.created[-1:]]
            self.sink.diag(span, code, message, rel, function=frame.qualname)
            return
        if frame.call_sites and code != "SH108":
            # An operation that fails only for the shapes a caller passes is reported at that
            # caller's line (the callee's line is fine for other calls); assertions are claims
            # and stay where they are written.
            site = frame.call_sites[0]
            rel.insert(0, Related(span.line, span.col, f"fails here, in {frame.qualname}"))
            for c in frame.created[-1:]:
                rel.append(Related(c.line, c.col, "the layer is created here"))
            self.sink.diag(site, code, message, rel, function=frame.qualname, inner=(span.line, code))
            return
        for site in frame.call_sites[-2:]:
            rel.append(Related(site.line, site.col, "called from here with the shapes above"))
        for c in frame.created[-1:]:
            rel.append(Related(c.line, c.col, "the layer is created here"))
        self.sink.diag(span, code, message, rel, function=frame.qualname)

    def raised(self, frame: Frame, span: Span, code: str, message: str, related: list) -> None:
        """A line that raises for every admissible input on this path (an unpacking of the wrong
        arity, a division by zero, contracts.py): a failure the questions see, as an operation's
        (`failed`) — a migration must not offer inputs that reach it."""
        if not frame.caught and not frame.dead:
            self.failures.append(Failure(frame.qualname, span, FALSE, code, message, frame.context))
        self.report(frame, span, code, message, related)

    def declared(self, frame: Frame, span: Optional[Span], code: str, message: str, related: list) -> None:
        """A declaration no admissible value meets (an annotation, contracts.py): an error, but
        Python does not execute annotations, so the path goes on and later lines are checked."""
        dead = frame.dead
        self.report(frame, span, code, message, related)
        frame.dead = dead

    def failed(self, frame: Frame, span: Span, err: OpFailed, extra_related: list) -> None:
        if not frame.caught:  # (a handler gets on from it: controlflow.s_Try)
            self.failures.append(Failure(frame.qualname, span, getattr(err, "pred", FALSE), err.code, err.message,
                                         frame.context))
        rel = []
        for item in list(err.related) + extra_related:
            if isinstance(item, Related):
                rel.append(item)
            elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Span):
                if item[0].line != span.line:
                    rel.append(Related(item[0].line, item[0].col, item[1]))
        seen, uniq = set(), []
        for r in rel:
            if (r.line, r.message) not in seen:
                seen.add((r.line, r.message))
                uniq.append(r)
        self.report(frame, span, err.code, err.message, uniq)
