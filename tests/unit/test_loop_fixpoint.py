"""A loop over a list of unknown length runs its body until what the body reads at its head is
stable, not until every name it assigns is: a body that keeps the shapes it reads is at its
fixpoint after one pass, so loops nested three deep run their body once, not 2**3 times.
A re-entry of a running function with nothing new (the same arguments, or unknowns) is its
fixpoint at once: an unknown result. Steps are the interpreter's deterministic work count."""
import ast

from shapehint.analysis.api import analyze_source
from shapehint.analysis.liveness import exposed_names


def _loop(src: str) -> ast.AST:
    return next(n for n in ast.walk(ast.parse(src)) if isinstance(n, (ast.For, ast.While)))


def test_exposed_names_are_those_read_before_every_path_writes_them():
    src = '''
for layer in layers:
    out = layer(h)
    if flag:
        q = out
    else:
        q = pooled
    h = q + out
    for j in inner:
        k = j * h
    acc += k
'''
    # `layer` is the target, `out` and `q` are written first on every path; `k` only inside a
    # loop that may not run; `acc` is read by its own augmented assignment
    assert exposed_names(_loop(src)) == {"h", "flag", "pooled", "inner", "k", "acc"}


def test_a_write_on_one_arm_only_or_after_the_read_leaves_the_name_exposed():
    src = '''
while n > 0:
    if c:
        x = 1
    y = x
    z = w
    w = 2
'''
    assert exposed_names(_loop(src)) == {"n", "c", "x", "w"}


NESTED = '''import torch
import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        h = self.norm(x)
        h = torch.relu(self.fc(h))
        return x + h


class Encoder(nn.Module):
    def __init__(self, d: int, sizes: list, repeats: list):
        super().__init__()
        self.repeats = repeats
        self.blocks = nn.ModuleList([nn.ModuleList([Layer(d) for _ in range(n)]) for n in sizes])

    def forward(self, hidden):
        for block_index, block in enumerate(self.blocks):
            for layer in block:
                for r in range(self.repeats[block_index]):
                    out = layer(hidden)
                    hidden = out
        return hidden
'''


def _forward(r, name: str = "hidden"):
    return [v["shape"] for v in r.infer_json()["values"] if v["name"] == name]


def test_nested_loops_that_keep_the_shapes_run_their_body_once():
    r = analyze_source(NESTED, "enc.py")
    # each pass of each loop re-ran the loops inside it: 8 runs of Layer.forward
    assert r.stats["steps"] < 700, r.stats["steps"]
    assert not r.diagnostics


def test_a_loop_that_changes_what_it_reads_still_runs_twice():
    src = """import torch


def widen(x: torch.Tensor, n: int):
    assert x.shape == (2, 8)
    for _ in range(n):
        y = x + 0
        x = torch.zeros(3, 8)
    return x
"""
    r = analyze_source(src, "widen.py")
    ys = [v["shape"] for v in r.infer_json()["values"] if v["name"] == "y"]
    # the second pass reads the joined `x`: [2, 8] on the first iteration, [3, 8] after
    assert ys and ys[0][0] != 2 and ys[0][1] == 8, ys


RECURSIVE = '''import torch


class Pool:
    def __init__(self, config):
        self.config = config

    def stride_pool(self, tensor, axis):
        if tensor is None:
            return None
        if isinstance(axis, (list, tuple)):
            for ax in axis:
                tensor = self.stride_pool(tensor, ax)
            return tensor
        if isinstance(tensor, (tuple, list)):
            return type(tensor)(self.stride_pool(x, axis) for x in tensor)
        axis %= tensor.ndim
        return tensor[(slice(None),) * axis + (slice(None, None, 2),)]

    def pool_all(self, inputs):
        a, b, c, d = inputs
        return self.stride_pool(a, 0), self.stride_pool(b, [1, 2]), self.stride_pool(c, self.config.axes)


def known(x: torch.Tensor):
    assert x.shape == (4, 6, 8)
    y = Pool(None).stride_pool(x, [1, 2])
    return y
'''


def test_a_recursion_that_repeats_its_running_call_stops_at_once():
    r = analyze_source(RECURSIVE, "pool.py")
    # with `inputs` unknown, each level re-entered stride_pool twice more until the recursion
    # limit: over 20,000 steps
    assert r.stats["steps"] < 3_000, r.stats["steps"]
    assert not r.stats["cut_short"]


def test_a_recursion_on_known_values_is_still_followed():
    # the axis recursion alone: `isinstance(axis, ...)` on ints and lists is decided
    src = RECURSIVE.replace("""        if isinstance(tensor, (tuple, list)):
            return type(tensor)(self.stride_pool(x, axis) for x in tensor)
""", "")
    r = analyze_source(src, "pool.py")
    ys = [v["shape"] for v in r.infer_json()["values"] if v["name"] == "y"]
    assert ys == [[4, 3, 4]]  # both axes halved, one recursion level each
