"""Frontend properties: incremental parsing equals a fresh parse after edits, and random
token-level damage (delete, duplicate, swap, insert unicode) never raises and always leaves a
tree that `compile` accepts, with errors inside the text."""
import ast
import io
import pathlib
import tokenize

from hypothesis import HealthCheck, given, settings, strategies as st

from shapehint.frontend.parse import IncrementalParser, parse_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted(ROOT.glob("shared/examples/*.py"))

PROGRAM = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Block(nn.Module):
    def __init__(self, c: int, heads: int = 4):
        super().__init__()
        self.conv1 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.fc = nn.Linear(2 * c, c)

    def forward(self, x: Float[Tensor, "b c h w"]) -> Tensor:
        B, C, H, W = x.shape  # [B, C, H, W]
        y = self.conv1(x).flatten(2).transpose(1, 2)
        z = y.view(B, H * W, -1) @ self.fc.weight.T
        assert z.shape[1] == H * W, f"bad {z.shape}"
        out = [t[..., None, :] for t in z.unbind(0) if t.numel() > 0]
        with torch.no_grad():
            m = {k: v for k, v in zip("ab", out)}
        return z if m else -z


def main(a, *args, k=1, **kw):
    try:
        x = torch.randn(2, 3, 8, 8)
    except (ValueError, RuntimeError) as e:
        raise RuntimeError("x") from e
    for i in range(3):
        x = x + i
    return Block(3)(x)
'''


def tokens(text):
    return [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.ENDMARKER, tokenize.DEDENT) and t.string]


def offsets(text):
    starts, pos = [], 0
    for line in text.split("\n"):
        starts.append(pos)
        pos += len(line) + 1
    return lambda lc: starts[lc[0] - 1] + lc[1]


SOURCES = [PROGRAM] + [p.read_text(encoding="utf-8") for p in EXAMPLES[:3]]
TOKENS = [(text, [(offsets(text)(t.start), offsets(text)(t.end)) for t in tokens(text)]) for text in SOURCES]
UNICODE = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=3)


@st.composite
def damaged(draw):
    text, spans = draw(st.sampled_from(TOKENS))
    edits = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "unicode", "bracket"]))
        a, b = spans[draw(st.integers(0, len(spans) - 1))]
        if kind == "delete":
            edits.append((a, b, ""))
        elif kind == "duplicate":
            edits.append((a, a, text[a:b]))
        elif kind == "swap":
            c, d = spans[draw(st.integers(0, len(spans) - 1))]
            if b <= c:
                edits += [(a, b, text[c:d]), (c, d, text[a:b])]
        elif kind == "unicode":
            edits.append((a, a, draw(UNICODE)))
        else:
            edits.append((b, b, draw(st.sampled_from(["(", ")", "[", "]", ":", "\n", "\n    ", "'", '"""']))))
    # apply right to left, dropping overlaps, so every edit refers to the original offsets
    out, last = text, len(text) + 1
    for a, b, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if b <= last:
            out, last = out[:a] + new + out[b:], a
    return out


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged())
def test_random_damage_never_raises_and_gives_a_compilable_tree(text):
    p = parse_module(text)
    compile(p.tree, "<x>", "exec")
    n = len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    assert len(p.lines) == n
    assert all(1 <= e.line <= e.end_line <= n and e.message.startswith("SyntaxError") for e in p.errors)
    assert [e.line for e in p.errors] == sorted({e.line for e in p.errors})
    for node in ast.walk(p.tree):
        if hasattr(node, "lineno"):
            assert 1 <= node.lineno <= node.end_lineno <= n


EDITS = [
    ("z = y.view(B, H * W, -1) @ self.fc.weight.T", "z = y.view(B, "),
    ("z = y.view(B, ", "z = y.view(B, H * W"),
    ("z = y.view(B, H * W", "z = y.view(B, H * W, -1)"),
    ("def main(a, *args, k=1, **kw):", "def main(a, *args, k=1, **kw"),
    ("def main(a, *args, k=1, **kw", "def main(a, *args, k=1, **kw):"),
    ("        return z if m else -z", "        return z if m else -z\n      oops = 1"),
    ("      oops = 1", "        α = 1  # é"),
    ("    for i in range(3):", "    for i in range(3)"),
    ("    for i in range(3)", "    for i in range(3):"),
    ("import torch\n", "import torch\nfrom . import (\n"),
]


def test_incremental_equals_fresh_after_each_edit():
    inc, text = IncrementalParser(), PROGRAM
    for old, new in EDITS:
        assert old in text
        text = text.replace(old, new, 1)
        a, b = inc.parse(text, "/tmp/shapehint-inc.py"), parse_module(text)
        assert ast.dump(a.tree, include_attributes=True) == ast.dump(b.tree, include_attributes=True), new
        assert a.errors == b.errors and a.comments == b.comments and a.lines == b.lines, new


def test_incremental_documents_do_not_share_state():
    inc = IncrementalParser()
    broken = PROGRAM.replace("y = self.conv1(x)", "y = self.conv1(")
    a = inc.parse(broken, "/tmp/a.py")
    inc.parse(PROGRAM, "/tmp/b.py")
    again = inc.parse(broken, "/tmp/a.py")
    assert ast.dump(a.tree, include_attributes=True) == ast.dump(again.tree, include_attributes=True)
    assert [e.line for e in again.errors] == [15]


LINE_EDITS = ["", "pass", "x = 1", "    x = 1", "        y = x  # [B, 3]", "def f(a):", "@staticmethod",
              "class K:", "    return 1", "'''", "x = (", ")", "    ", "# a comment", "a = 1; b = 2",
              "        z = z.view(B, -1)", "else:", "from __future__ import annotations", "\\"]


@st.composite
def line_edited(draw):
    """A valid source and a few edits that each replace one line (the line count stays; valid
    edits go through the splice, broken ones through the full parse), or insert one."""
    text = draw(st.sampled_from(SOURCES))
    lines = text.split("\n")
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["replace", "copy", "tweak", "insert"]))
        if kind == "replace":
            lines[k] = draw(st.sampled_from(LINE_EDITS))
        elif kind == "copy":
            lines[k] = lines[draw(st.integers(0, len(lines) - 1))]
        elif kind == "tweak":
            lines[k] = lines[k].replace("x", "xx").replace("1", "2") + draw(st.sampled_from(["", " # c", "  "]))
        else:
            lines.insert(k, draw(st.sampled_from(LINE_EDITS)))
        steps.append("\n".join(lines))
    return text, steps


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(line_edited())
def test_spliced_reparse_equals_a_fresh_parse(case):
    text, steps = case
    inc = IncrementalParser()
    inc.parse(text, "/tmp/shapehint-splice.py")
    for new in steps:
        a, b = inc.parse(new, "/tmp/shapehint-splice.py"), parse_module(new)
        assert ast.dump(a.tree, include_attributes=True) == ast.dump(b.tree, include_attributes=True)
        assert a.errors == b.errors and a.comments == b.comments and a.lines == b.lines


def test_an_edit_inside_one_function_reuses_the_other_statements():
    inc = IncrementalParser()
    first = inc.parse(PROGRAM, "/tmp/shapehint-reuse.py")
    edited = inc.parse(PROGRAM.replace("x = x + i", "x = x * i"), "/tmp/shapehint-reuse.py")
    same = [a is b for a, b in zip(first.tree.body, edited.tree.body)]
    assert same.count(False) == 1 and not same[-1]  # only `def main` was parsed again
    assert ast.dump(edited.tree) == ast.dump(parse_module(PROGRAM.replace("x = x + i", "x = x * i")).tree)
