"""A deep record's loss is its own label's only (analysis/sink.py, `Sink.record`).

A construction context's deep records (frames.deep_context: the file's own calls made inside the
model's run, from one call site on) are calls their caller's own analysis also makes at that
site. One that lost the value (its input lost upstream, in the construction's narrower facts)
lists no shape for its own label, but is no "other path" for the line: the line's shape stays
the join of the calls that are not construction contexts. A call outside the construction
contexts that lost the value with other argument kinds still leaves the line without a shape.
"""
from shapehint.analysis.frames import BuiltContext, deep_context
from shapehint.analysis.sink import Sink
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import Span, TensorV, UnknownV

SPAN = Span(3, 4, 3, 5)
BUILD = "Model.__init__:5 assuming config.impl == 'plain'"  # (a literal construction context)
KEPT = ((), None, ("TensorV",))  # (the call's tensor parameters, their annotations' names, argument kinds)
OTHER = ((), None, ("UnknownV",))


def _t(*dims) -> TensorV:
    return TensorV(Shape.of([Expr.const(d) for d in dims]), "float32", None)


def _finish(sink: Sink):
    [rec] = [r for r in sink.finish_values(lambda t: t.shape) if r.kind == "tensor"]
    return rec, {str(lbl) for lbl, _ in rec.contexts}


def _sink(lost_context) -> Sink:
    sink = Sink("m.py")
    build = BuiltContext(BUILD)
    sink.record(SPAN, "k", "f", _t(2, 3), "called from g (line 9)", False, True, call=KEPT)
    sink.record(SPAN, "k", "f", _t(2, 3), build, False, True, call=KEPT)
    sink.record(SPAN, "k", "f", _t(2, 3), deep_context(build, "Model.forward:12"), False, True, call=KEPT)
    sink.record(SPAN, "k", "f", UnknownV(), lost_context, False, True, call=OTHER)
    return sink


def test_a_deep_call_that_lost_the_value_keeps_the_lines_shape():
    lost = deep_context(BuiltContext(BUILD), "Model.forward:14")
    rec, listed = _finish(_sink(lost))
    assert str(rec.shape) == "[2, 3]"
    assert str(lost) not in listed  # (its own label: no shape)
    assert BUILD + " via Model.forward:12" in listed and BUILD in listed  # (the other call site's label keeps its own)


def test_a_call_outside_the_constructions_that_lost_the_value_drops_the_lines_shape():
    rec, listed = _finish(_sink("called from h (line 20)"))
    assert rec.shape is None and "h:20" not in listed
