"""Module-level lists that functions change (analysis/written_lists.py).

`BUF = []`, `push` appending to it, `use` concatenating it: a function runs after any number of
calls of any function, so `use` may see any number of pushes. Main claimed one push's rows when
`push` came first in the file (its analysis left its item in the list for `use`'s), and a false
SH107 (an empty list) when `use` came first. Each claim is checked against torch after one and
after two pushes: a line may claim no shape, or one that every run has. A list the functions only
read keeps its items."""
import torch

from shapehint.analysis.api import analyze_source

PUSH = '''
def push(x):
    BUF.append(x.reshape(2, 3))
'''
USE = '''
def use():
    y = torch.cat(BUF, 0)
    return y
'''
FILL = '''
def fill(buf, x):
    buf.append(x.reshape(2, 3))


def push(x):
    fill(BUF, x)
'''
HEAD = "import torch\n\nBUF = []\n"

PROGRAMS = {
    "push first": HEAD + PUSH + USE,
    "use first": HEAD + USE + PUSH,
    "through a helper": HEAD + FILL + USE,
}

READ_ONLY = '''import torch

WIDTHS = [4, 8]
PARTS = [torch.zeros(2, 3), torch.zeros(2, 3)]


def first():
    a = torch.zeros(WIDTHS[1])
    return a


def joined():
    b = torch.cat(PARTS, 0)
    return b
'''


def _claims(src: str):
    r = analyze_source(src, "m.py")
    got = r.infer_json()
    return {v["name"]: v["shape"] for v in got["values"]}, got["diagnostics"]


def _agrees(claim, seen: set) -> bool:
    """`claim` (an `infer` shape, or None) holds for every shape of `seen`: its rank, and each
    dim an int equal to torch's or a name (none is bound here: the functions take no sizes)."""
    return claim is None or all(len(claim) == len(s) and all(not isinstance(c, int) or c == d
                                                             for c, d in zip(claim, s)) for s in seen)


def _observed(src: str) -> set:
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    seen = set()
    for pushes in (1, 2, 3):
        ns["BUF"].clear()
        for _ in range(pushes):
            ns["push"](torch.zeros(6))
        seen.add(tuple(ns["use"]().shape))
    return seen


def test_a_list_functions_append_to_claims_no_single_length():
    for what, src in PROGRAMS.items():
        claims, diagnostics = _claims(src)
        seen = _observed(src)
        assert len(seen) == 3, what
        assert _agrees(claims.get("y"), seen), (what, claims.get("y"), seen)
        assert not [d for d in diagnostics if d["severity"] == "error"], (what, diagnostics)


def test_a_list_functions_only_read_keeps_its_items():
    claims, diagnostics = _claims(READ_ONLY)
    ns: dict = {}
    exec(compile(READ_ONLY, "m.py", "exec"), ns)
    assert tuple(claims["a"]) == tuple(ns["first"]().shape) == (8,)
    assert tuple(claims["b"]) == tuple(ns["joined"]().shape) == (4, 3)
    assert not diagnostics
