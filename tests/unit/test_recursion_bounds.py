"""Integer code that is not about shapes must not blow the analysis up: binary recursion is
bounded per outermost call (frames.MAX_RECURSIVE_CALLS) and int expressions too large to be a
shape are not tracked (evaluator.MAX_INT_EXPR_NODES). Linear recursion over tensors keeps its
depth. (Found on mpmath's libelefun.py: 20 s and a spent step budget, now ~2 s.) Steps are the
interpreter's deterministic work count, not a timing."""
from shapehint.analysis.api import analyze_source

SPLIT = '''
def split(q, a, b):
    if b - a == 1:
        return 1, q * q * (2 * a + 3), 2 * a + 3
    m = (a + b) // 2
    p1, q1, r1 = split(q, a, m)
    p2, q2, r2 = split(q, m, b)
    return q2 * p1 + r1 * p2, q1 * q2, r1 * r2


def series(a, prec):
    n = prec // 3 + 20
    p, q, r = split(a, 0, n)
    return (p + q) // (q * a)


def machin(prec):
    s = 0
    for c, b in [(4, 5), (-1, 239)]:
        s += c * series(b, prec + 10)
    return s
'''


def test_binary_splitting_recursion_is_bounded():
    r = analyze_source(SPLIT, "split.py")
    assert r.stats["internal_errors"] == []
    assert not r.stats["truncated"]
    assert r.stats["steps"] < 60_000, r.stats["steps"]


def test_repeated_squaring_is_not_tracked_as_a_polynomial():
    """`x = x * x + n` eight times is a polynomial of degree 256 (a second to build, and
    exponential in the count); shape-sized arithmetic beside it is still tracked."""
    text = ("def f(n: int):\n"
            "    x = n\n"
            "    for _ in range(8):\n"
            "        x = x * x + n\n"
            "    y = x\n"
            "    h = (n - 1) // 2 + 1\n"
            "    return y, h\n")
    r = analyze_source(text, "square.py")
    assert not r.stats["truncated"] and r.stats["internal_errors"] == []
    ints = {v.name: v.text for v in r.values if v.kind == "int" and v.is_target}
    assert "y" not in ints
    assert ints["h"] == "(n - 1)//2 + 1"


def test_linear_recursion_over_tensors_keeps_its_depth():
    text = ("import torch\nimport torch.nn.functional as F\n\n"
            "def down(x, n):\n"
            "    if n == 0:\n"
            "        return x\n"
            "    return down(F.max_pool2d(x, 2), n - 1)\n\n"
            "y = down(torch.zeros(1, 3, 64, 64), 5)\n")
    r = analyze_source(text, "down.py")
    ys = [v for v in r.infer_json()["values"] if v["name"] == "y"]
    assert ys and ys[0]["shape"] == [1, 3, 2, 2]
