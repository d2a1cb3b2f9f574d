"""A loop that may run no iteration is an undecided arm (executor._loop_once): what its body
requires, and what binding its element says (`0 <= i <= n - 2`), holds only for the inputs
that make it run. A loop known to run (`range(depth)`, a stack of `depth` layers) keeps them."""
from shapehint.analysis.api import analyze_source

HEAD = '''import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


'''


def _codes(src: str) -> list:
    return [(d.line, d.code) for d in analyze_source(HEAD + src, "m.py").diagnostics]


def test_a_loop_over_a_range_that_may_be_empty_does_not_fix_the_input():
    assert _codes('''def f(x: Float[Tensor, "B C"], n: int):
    for i in range(n - 1):
        x = nn.Linear(64, 64)(x)
    return nn.Linear(32, 8)(x)
''') == []  # n == 1 runs no iteration, and C == 32 fits; was SH101 "expects 32, but x has C"


def test_a_loop_over_a_list_of_unknown_length_does_not_fix_the_input():
    assert _codes('''def f(x: Float[Tensor, "B C"], layers: list):
    for layer in layers:
        x = nn.Linear(64, 64)(x)
    return nn.Linear(32, 8)(x)
''') == []


def test_the_element_of_a_range_that_may_be_empty_says_nothing_after_the_loop():
    assert _codes('''def f(x: Float[Tensor, "B C"], n: int):
    for i in range(n - 1):
        x = x * i
    assert n == 1
    return x
''') == []  # `0 <= i <= n - 2` held only inside: was SH108, n >= 2 "for every input"


def test_a_loop_that_runs_keeps_what_its_body_requires():
    assert _codes('''def f(x: Float[Tensor, "B C"], n: int):
    for i in range(n):
        x = nn.Linear(64, 64)(x)
    return nn.Linear(32, 8)(x)
''') == [(9, "SH101")]  # n >= 1: x is [B, 64] after it


def test_a_stack_of_depth_layers_runs_at_least_once():
    assert _codes('''class Net(nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(64, 64) for _ in range(depth)])
        self.head = nn.Linear(32, 8)

    def forward(self, x: Float[Tensor, "B C"]):
        for block in self.blocks:
            x = block(x)
        return self.head(x)
''') == [(15, "SH101")]  # the stack's length is depth >= 1 (ModuleV.length)
