"""A global a function rebinds through `global` (analysis/rebound_globals.py): the store writes the
module's name, and past the module's top-level code the name is unknown to every function's
analysis, since any of them may run after the rebinding one.

Read as a local of `reset`, every other function read the module's first value: `use()` and
`run()` (which calls `reset()` first) claimed `[4, 8]`, where torch gives `[4, 16]` after a
reset; so did the module's own code after its call of `reset()`. The top-level code before that
call keeps its shape, and a global no function rebinds keeps its shape everywhere (CONTROL). A
name of an enclosing function that a nested one rebinds through `nonlocal` is unknown to the
enclosing function after the call (NESTED: it claimed the old `[4, 8]`), and a class attribute a
function or the module's code stores (`C.W = ...`, `cls.W = ...` in a classmethod) is unknown
past the store and to every function's analysis (CLASS: the store was not followed at all).
Checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch

W = torch.zeros(4, 8)
K = torch.zeros(3, 5)


def reset(width):
    global W
    W = torch.zeros(4, width)


def use():
    y = W
    return y


def control():
    k = K
    return k


def run():
    reset(16)
    z = W
    return z


before = use()
reset(16)
after = use()
later = W
'''
BEFORE = PROGRAM.splitlines().index("before = use()") + 1


def _claims() -> dict:
    values = analyze_source(PROGRAM, "m.py").infer_json()["values"]
    return {(v["function"], v["name"]): (v["shape"], {c["context"]: c["shape"] for c in v.get("contexts", [])})
            for v in values}


def _torch() -> dict:
    torch = pytest.importorskip("torch")
    ns: dict = {}
    torch.set_default_device("meta")
    try:
        exec(compile(PROGRAM, "m.py", "exec"), ns)
        return {"before": tuple(ns["before"].shape), "after": tuple(ns["after"].shape),
                "later": tuple(ns["later"].shape), "run": tuple(ns["run"]().shape),
                "control": tuple(ns["control"]().shape)}
    finally:
        torch.set_default_device(None)


def test_torch_reads_the_rebound_global():
    assert _torch() == {"before": (4, 8), "after": (4, 16), "later": (4, 16), "run": (4, 16), "control": (3, 5)}


def _agrees(claim, shape: tuple) -> bool:
    return claim is None or len(claim) == len(shape) and all(not isinstance(c, int) or c == d
                                                             for c, d in zip(claim, shape))


@pytest.mark.parametrize("key, shape", [
    (("run", "z"), (4, 16)),
    (("<module>", "after"), (4, 16)),
    (("<module>", "later"), (4, 16)),
])
def test_a_read_after_the_rebinding_claims_no_old_shape(key, shape):
    claim = _claims().get(key, (None, {}))
    assert claim[0] != [4, 8] and _agrees(claim[0], shape), claim  # (main: [4, 8])
    assert all(_agrees(c, shape) for c in claim[1].values()), claim


def test_a_function_reading_it_claims_neither_value():
    claim, contexts = _claims().get(("use", "y"), (None, {}))
    assert claim is None or not any(isinstance(c, int) and c in (8, 16) for c in claim), claim  # (main: [4, 8])
    # each call in its own context: the one before `reset(16)`, the one after it
    assert _agrees(contexts.get(f"<module>:{BEFORE}"), (4, 8)), contexts
    assert _agrees(contexts.get(f"<module>:{BEFORE + 2}"), (4, 16)), contexts


def test_the_top_level_code_before_the_rebinding_and_other_globals_keep_their_shapes():
    claims = _claims()
    assert claims[("<module>", "before")][0] == [4, 8]
    assert claims[("control", "k")][0] == [3, 5]
    assert claims[("reset", "W")][0] in ([4, 16], [4, "width"])  # (the store's own line)


NESTED = '''import torch


def outer(width):
    w = torch.zeros(4, 8)

    def reset():
        nonlocal w
        w = torch.zeros(4, width)

    before = w
    reset()
    after = w
    return before, after
'''


def test_a_nonlocal_rebinding_is_the_enclosing_functions():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(NESTED, "m.py", "exec"), ns)
    torch.set_default_device("meta")
    try:
        before, after = ns["outer"](16)
    finally:
        torch.set_default_device(None)
    assert (tuple(before.shape), tuple(after.shape)) == ((4, 8), (4, 16))
    values = analyze_source(NESTED, "m.py").infer_json()["values"]
    claims = {v["name"]: v["shape"] for v in values if v["function"] == "outer"}
    assert claims["before"] == [4, 8]
    assert claims.get("after") is None or claims["after"] in ([4, 16], [4, "width"]), claims  # (main: [4, 8])


CLASS = '''import torch


class C:
    W = torch.zeros(4, 8)

    @classmethod
    def grow(cls, n):
        cls.W = torch.zeros(4, n)


class D:
    W = torch.zeros(3, 5)


def reset():
    C.W = torch.zeros(4, 16)


def use():
    y = C.W
    return y


def control():
    k = D.W
    return k


first = C.W
C.grow(32)
second = C.W
'''


def test_a_class_attribute_a_function_stores_is_unknown_after_the_store():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    torch.set_default_device("meta")
    try:
        exec(compile(CLASS, "m.py", "exec"), ns)
        shapes = (tuple(ns["first"].shape), tuple(ns["second"].shape), tuple(ns["use"]().shape))
        ns["reset"]()
        shapes += (tuple(ns["use"]().shape), tuple(ns["control"]().shape))
    finally:
        torch.set_default_device(None)
    assert shapes == ((4, 8), (4, 32), (4, 32), (4, 16), (3, 5))
    values = analyze_source(CLASS, "m.py").infer_json()["values"]
    claims = {(v["function"], v["name"]): v["shape"] for v in values}
    assert claims[("<module>", "first")] == [4, 8]
    for key in (("<module>", "second"), ("use", "y")):  # (main: [4, 8] each)
        assert claims.get(key) is None or 8 not in claims[key], (key, claims.get(key))
    assert claims[("control", "k")] == [3, 5]
