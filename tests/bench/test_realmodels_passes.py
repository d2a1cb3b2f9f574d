"""The referee's pass-by-pass judgement (bench/realmodels/passes.py) and its record of a
container's parts by position (execute._part_ints, score's `x[i]`).

A line in a loop that sees another shape each pass of one call is judged against the answer's
`iteration k` contexts, the k-th shape of each call against `iteration k`, only where the k-th run
of the line is surely the loop's k-th pass. Every test below that makes a line right has a twin
where one claimed dim is off, which must be wrong."""
import importlib.util
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "bench", "realmodels"))
import execute  # noqa: E402
import passes  # noqa: E402
import pipeline  # noqa: E402
import score  # noqa: E402

LOOPS = '''
def f(xs, layers):
    for l in layers:
        x = l(xs)
        y = x + 1
        if x is None:
            z = 3
    for l in layers:
        for m in l:
            w = m(x)
    while True:
        for a in b:
            q = 1
    for l in layers:
        if l:
            continue
        r = 2
    for l in layers:
        s = [t for t in l]
        def g():
            for u in v:
                continue
        break
'''


def test_only_simple_statements_directly_in_one_loop_without_continue_are_judged_by_pass():
    got = passes.pass_lines(LOOPS)
    assert {4, 5, 19} <= got  # (a comprehension, a nested function's `continue` and a `break` shift nothing)
    assert not got & {7, 10, 13, 17}  # under an `if`; a nested loop; a loop in a `while`; a body with `continue`


SEQ_SHAPES = [[1, 8, 16, 16], [1, 16, 8, 8]]


# A stage called from Net.forward:11, with a downsampling pair (a norm, then a strided conv);
# line 50 runs once per pass of `for layer in self.down: features = layer(features)`.
def _run(passes_of_50, observed=SEQ_SHAPES):
    obs = sorted({tuple(s) for seq in passes_of_50 or [observed] for s in seq})
    return [{"id": 0, "function": "Stage.forward", "context": "Net.forward:11", "parent": None,
             "env": {"features": {"shape": [1, 8, 16, 16]}}, "ctor": {"out_channels": 16, "stride": 2},
             "lines": [{"line": 50, "col": 12, "name": "features", "observed": [{"shape": list(s)} for s in obs]}],
             "passes": {"50:12:features": passes_of_50}}]


SEQ = [[[1, 8, 16, 16], [1, 16, 8, 8]]]
ITER = [{"context": "iteration 0", "shape": ["features.shape[0]", "features.shape[1]", "features.shape[2]",
                                             "features.shape[3]"]},
        {"context": "iteration 1", "shape": ["features.shape[0]", "out_channels", "features.shape[2]//stride",
                                             "features.shape[3]//stride"]}]


def _verdict(contexts, run, lines=frozenset({50})):
    ans = {"values": [{"line": 50, "col": 12, "name": "features", "shape": ["features.shape[0]", "?", "?", "?"],
                       "contexts": contexts}]}
    return score.score(run, ans, pass_lines=lines)["50:features"]["verdict"]


def test_each_pass_against_its_iteration_context():
    assert _verdict(ITER, _run(SEQ)) == "right"
    off = [ITER[0], dict(ITER[1], shape=["features.shape[0]", "out_channels", "features.shape[2]//stride + 1",
                                         "features.shape[3]//stride"])]
    assert _verdict(off, _run(SEQ)) == "wrong"
    swapped = [dict(ITER[0], context="iteration 1"), dict(ITER[1], context="iteration 0")]
    assert _verdict(swapped, _run(SEQ)) == "wrong"


def test_no_pass_judgement_where_the_order_is_not_surely_the_passes():
    assert _verdict(ITER, _run(SEQ), lines=frozenset()) == "partial"  # (not a line of one loop)
    assert _verdict(ITER, _run(None)) == "partial"  # a call's order was lost
    assert _verdict(ITER + [{"context": "generic", "shape": [1, 2, 3, 4]}], _run(SEQ)) == "partial"
    assert _verdict(ITER[:1], _run(SEQ)) == "partial"  # a pass without its context
    longer = [SEQ[0] + [[1, 16, 4, 4]]]
    assert _verdict(ITER, _run(longer)) == "partial"


def test_an_iteration_context_of_a_call_is_not_an_own_pass():
    """`detail: iteration k` items are a caller's contexts, in the caller's names: not judged here."""
    called = [dict(c, context="Net.forward:11", detail=c["context"]) for c in ITER]
    assert _verdict(called, _run(SEQ)) == "partial"


def test_keep_passes_keeps_distinct_orders_and_gives_up_on_a_lost_pass():
    rec = {}
    execute.keep_passes(rec, {(1, 0, "x"): [[1, 2], [1, 3]], (2, 0, "n"): [None, None]})
    execute.keep_passes(rec, {(1, 0, "x"): [[1, 2], [1, 3]]})
    assert rec["passes"] == {(1, 0, "x"): [[[1, 2], [1, 3]]]}  # (a line never a tensor: nothing)
    execute.keep_passes(rec, {(1, 0, "x"): [[1, 2], None]})
    assert rec["passes"][(1, 0, "x")] is None
    execute.keep_passes(rec, {(1, 0, "x"): [[1, 2]]})
    assert rec["passes"][(1, 0, "x")] is None


MODEL = '''import torch
from torch import nn


class Stage(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.down = nn.ModuleList([nn.BatchNorm2d(c), nn.Conv2d(c, 2 * c, 2, stride=2)])

    def forward(self, features):
        for layer in self.down:
            features = layer(features)
        return features
'''


def test_the_tracer_records_each_calls_passes_in_order(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "stage_mod.py"
    path.write_text(MODEL)
    runner = execute.load_runner(pipeline.RUNNER)
    tracer = execute.tracer_class(runner)(str(path), runner.SourceMap(MODEL), torch)
    spec = importlib.util.spec_from_file_location("stage_mod", str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = mod.Stage(4).eval()
    sys.settrace(tracer.global_trace)
    try:
        with torch.no_grad():
            m(torch.zeros(1, 4, 8, 8))
            m(torch.zeros(1, 4, 8, 8))
    finally:
        sys.settrace(None)
    rec = next(r for r in tracer.to_json() if r["function"] == "Stage.forward")
    assert rec["passes"] == {"12:12:features": [[[1, 4, 8, 8], [1, 8, 4, 4]]]}


def test_a_containers_parts_are_recorded_by_position_too():
    nn = pytest.importorskip("torch.nn")

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Sequential(nn.Flatten(1), nn.ReLU(), nn.Linear(12, 5))
            self.by_key = nn.ModuleDict({"fc": nn.Linear(3, 4)})

    got = execute._part_ints(Net(), execute.PART_DEPTH)
    look = score.ObjProxy({"self": {"attrs": got}}).get
    assert score.evaluate("self.head[2].in_features", look) == 12
    assert score.judge(["self.head[2].in_features"], [12], look) == "right"
    assert score.judge(["self.head[2].out_features"], [12], look) == "wrong"
    for unbound in ("self.head[1].in_features", "self.head[-1].in_features", "self.by_key[0].in_features"):
        with pytest.raises(score.Unbound):
            score.evaluate(unbound, look)
