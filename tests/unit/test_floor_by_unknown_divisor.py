"""`math.ceil(a / b)` (and floor) where the divisor is a size no name holds — a join of paths
that disagree (`ws = a if flag else b`) — is a fresh int: the exact `-(-a // b)` showed as `?`
anyway, and every slice of a tensor padded by it (`math.ceil(H / ws) * ws`) asked the solver for
proofs over a floor by an unknown (seconds each). A named divisor keeps the exact quotient."""
import torch

from tests.unit.shape_eval import evaluated, inferred, run_program

SRC = '''
import math
import torch

def padded(x, flag: bool, a: int, b: int):
    ws = a if flag else b
    Hp = math.ceil(x.shape[2] / ws) * ws
    m = torch.zeros(1, Hp, 1)
    return m

def named(x, ws: int):
    Hp = math.ceil(x.shape[2] / ws) * ws
    m = torch.zeros(1, Hp, 1)
    return m
'''


def test_a_divisor_no_name_holds_gives_a_fresh_int():
    got = inferred(SRC, "padded")
    assert got["m"] == [1, "?", 1]
    for flag, a, b, h in [(True, 3, 5, 7), (False, 3, 5, 7), (True, 4, 2, 8)]:
        m = run_program(SRC)["padded"](torch.empty(1, 1, h, device="meta"), flag, a, b)
        assert len(m.shape) == 3 and m.shape[0] == 1 and m.shape[2] == 1


def test_a_named_divisor_keeps_the_exact_ceiling():
    got = inferred(SRC, "named")
    for h, ws in [(7, 3), (8, 4), (1, 5), (9, 2)]:
        m = run_program(SRC)["named"](torch.empty(1, 1, h, device="meta"), ws)
        assert evaluated(got["m"], {"x": torch.empty(1, 1, h), "ws": ws}) == list(m.shape)
