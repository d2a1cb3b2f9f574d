"""Module state a function writes through a path other than a plain store: a module dict's items
(`TABLE["w"] = ...`, `TABLE.update(...)`: global_objects.settle_tables) and an attribute a
method of an object that is no layer sets through `setattr(self, "w", ...)`
(reconfiguration.self_targets).

Any function runs at any point, after any number of calls of any function. Read as the module's
top-level code left it, or as the analysis of the function analysed just before left it, a
function's own analysis claimed a shape only one order of the calls gives: `use3()` claimed
`[4, 16]`, the tensor `reset3()`'s analysis had stored, where its first call returns torch's
`[4, 8]`; `use()` claimed the constructed `[4, 8]` where a call after `swap(16)` returns
`[4, 16]`. Calls in view keep their own shapes, in the order they run. Checked against torch on
the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

TABLES = '''import torch

TABLE = {"w": torch.zeros(4, 8)}
FIXED = {"k": torch.zeros(3, 5)}


def reset3():
    TABLE["w"] = torch.zeros(4, 16)


def grow():
    TABLE.update(w=torch.zeros(4, 32))


def use3():
    t = TABLE["w"]
    return t


def control():
    k = FIXED["k"]
    return k


def run():
    reset3()
    r = TABLE["w"]
    return r
'''

SETATTR = '''import torch


class Box:
    def __init__(self):
        self.w = torch.zeros(4, 8)

    def swap(self, n):
        setattr(self, "w", torch.zeros(4, n))

    def get(self):
        return self.w


BOX = Box()


def use():
    t = BOX.get()
    return t


def main():
    BOX.swap(16)
    s = BOX.get()
    return s
'''


def _claims(program: str) -> dict:
    values = analyze_source(program, "m.py").infer_json()["values"]
    return {(v["function"], v["name"]): (v["shape"], [c["shape"] for c in v.get("contexts", [])]) for v in values}


def _run(program: str, calls) -> list:
    torch = pytest.importorskip("torch")
    ns: dict = {}
    torch.set_default_device("meta")
    try:
        exec(compile(program, "m.py", "exec"), ns)
        return [None if out is None else tuple(out.shape) for out in (ns[name](*args) for name, args in calls)]
    finally:
        torch.set_default_device(None)


def _agrees(claim, shapes) -> bool:
    """`claim` (a shape, None for none) holds for every shape of `shapes`."""
    return claim is None or all(len(claim) == len(s) and all(not isinstance(c, int) or c == d for c, d in zip(claim, s))
                                for s in shapes)


def test_torch_reads_what_the_last_writer_stored():
    assert _run(TABLES, [("use3", ()), ("reset3", ()), ("use3", ()), ("grow", ()), ("use3", ()),
                         ("run", ()), ("control", ())]) == [(4, 8), None, (4, 16), None, (4, 32), (4, 16), (3, 5)]
    assert _run(SETATTR, [("use", ()), ("main", ()), ("use", ())]) == [(4, 8), (4, 16), (4, 16)]


def test_a_function_reading_a_written_table_claims_no_one_order():
    claim, _ = _claims(TABLES).get(("use3", "t"), (None, []))
    # (main: [4, 16] or [4, 32], what the analysis of reset3 or grow left in the dict)
    assert _agrees(claim, [(4, 8), (4, 16), (4, 32)]), claim


def test_calls_in_view_and_tables_no_function_writes_keep_their_shapes():
    claims = _claims(TABLES)
    assert claims[("run", "r")][0] == [4, 16]
    first = _claims(TABLES + "\n\nbefore = use3()\n")  # (the module's code runs in order: its call comes first)
    assert first[("<module>", "before")][0] == [4, 8] == list(_run(TABLES, [("use3", ())])[0])
    assert all(_agrees(c, [(4, 8)]) for c in first[("use3", "t")][1]), first[("use3", "t")]
    assert claims[("control", "k")][0] == [3, 5]


def test_an_attribute_a_method_sets_through_setattr_is_not_the_constructed_one():
    claims = _claims(SETATTR)
    claim, _ = claims.get(("use", "t"), (None, []))
    assert _agrees(claim, [(4, 8), (4, 16)]), claim  # (main: [4, 8])
    assert claims[("main", "s")][0] == [4, 16]


# A call that lost a value (unknown there) is taken to follow the path of alike calls that observed
# one (sink._value); one in a function's analysis, which reads a written table or a rebound global
# as unknown, does not follow the top-level code's call, which read the value it had then
# (rebound_globals.call_kinds: the tables' writes and their forgetting count as rebindings).
LOST = '''import torch

TABLE = {"w": torch.zeros(4, 8)}
W = torch.zeros(4, 8)


def f(x):
    y = x + TABLE["w"]
    return y


def g(x):
    v = x + W
    return v


def main(x):
    z = f(x)
    u = g(x)
    return z, u


def reset():
    global W
    TABLE["w"] = torch.zeros(4, 16)
    W = torch.zeros(4, 16)


a = f(torch.zeros(4, 1))
b = g(torch.zeros(4, 1))
'''


def test_torch_after_a_reset_gives_another_shape():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    torch.set_default_device("meta")
    try:
        exec(compile(LOST, "m.py", "exec"), ns)
        first = (tuple(ns["a"].shape), tuple(ns["b"].shape))
        ns["reset"]()
        assert first == ((4, 8), (4, 8))
        assert [tuple(t.shape) for t in ns["main"](torch.zeros(4, 1))] == [(4, 16), (4, 16)]
    finally:
        torch.set_default_device(None)


@pytest.mark.parametrize("key", [("f", "y"), ("g", "v")])
def test_a_call_that_lost_the_value_takes_no_path_of_the_top_level_call(key):
    claims = _claims(LOST)
    claim, contexts = claims.get(key, (None, []))
    assert _agrees(claim, [(4, 8), (4, 16)]), claim  # (main: [x.shape[0], 8])
    assert contexts == [[4, 8]], contexts  # (the top-level call's, in its context)
    assert claims[("<module>", "a")][0] == claims[("<module>", "b")][0] == [4, 8]
