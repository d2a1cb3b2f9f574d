"""A method whose calls take different paths on one object (reconfiguration.call_kinds). When a
call loses a record, `sink._value` still shows what the other calls agree on if their arguments
are alike (same kinds: the loss is the analysis's, not another path). A method's receiver is no
alike argument when methods other than `__init__` assign its attributes: a cache's first
`update` returns `k` itself, the second the concatenation, twice as long, so the line's
shape must not be `k`'s. Checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch


class Store:
    def __init__(self):
        self.keys = torch.tensor([])

    def update(self, k: torch.Tensor):
        if self.keys.numel() == 0:
            self.keys = k
        else:
            self.keys = torch.cat([self.keys, k], dim=-2)
        out = self.keys
        return out


def use(k):
    s = Store()
    a = s.update(k)
    b = s.update(k)
    return a, b
'''
OUT = 13


def _out():
    values = analyze_source(PROGRAM, "store.py").infer_json()["values"]
    hit = [v for v in values if v["function"] == "Store.update" and v["line"] == OUT and v["name"] == "out"]
    return hit[0] if hit else None


def test_torch_gives_the_two_calls_different_shapes():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "store.py", "exec"), ns)
    a, b = ns["use"](torch.empty(2, 3, 4, device="meta"))
    assert tuple(a.shape) == (2, 3, 4) and tuple(b.shape) == (2, 6, 4)


def test_the_line_claims_no_one_shape_for_both_calls():
    got = _out()
    assert got is None or got["shape"] is None  # (it was `[*k]`, wrong for the second call)


def test_the_first_calls_context_keeps_its_exact_shape():
    got = _out()
    listed = {c["context"]: c["shape"] for c in (got or {}).get("contexts", ())}
    assert listed.get("use:19") == ["*k"]  # torch: a is k's shape
