"""What a file imports, found by scanning its lines: no parse, no analysis.

A whole-repository check reads every file to decide whether it needs an analysis at all and
which workspace files its answer depends on (the cache key). Parsing 2,000 files with `ast`
costs ~9 ms each; this scan costs a small fraction of that, and it reads broken files too.

Only import statements and compound statements' headers (`def`, `if`, `try`, ...) are looked
at; a block ends at the first of them indented no deeper than its opener. It is an
over-approximation by design: a line in a string that looks like an import counts (unless it
starts with `>>>`, as doctest examples do). What it gets wrong makes a file look as if it used
torch or depended on more files: more analysis, never less.

Only `if TYPE_CHECKING:` blocks are left out: they never run, so `import torch` there gives
the file no tensors.

Tests: tests/unit/test_project_scan.py.
"""
from __future__ import annotations

import re
from typing import NamedTuple

_DEF = ("def ", "def\t", "async ")
_TYPE_CHECKING = ("if TYPE_CHECKING", "if typing.TYPE_CHECKING")
# Any other compound statement's header: it ends the blocks indented as deep or deeper (an
# `if is_torch_available():` after an `if TYPE_CHECKING:` block is no longer inside it).
_OTHER_BLOCK = ("if ", "if(", "elif ", "else", "try", "except", "finally", "with ", "for ", "while ",
                "class ", "match ", "case ")
_RELEVANT = ("import ", "import\t", "from ", "from\t") + _DEF + _TYPE_CHECKING + _OTHER_BLOCK
_FROM = re.compile(r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(.*)", re.S)
_IMPORT = re.compile(r"import[ \t]+(.*)", re.S)
_LINE_END = re.compile(r"\\[ \t]*$")

# How a file imports torch (a `Scan.torch` value): not at all; only inside functions; at import
# time under a condition (`if is_torch_available():`, `try:`); unconditionally at import time.
NONE, IN_FUNCTION, CONDITIONAL, AT_IMPORT = 0, 1, 2, 3


class Import(NamedTuple):
    """One module a statement may load: `name` as written (dotted), `level` the leading dots."""
    name: str
    level: int
    in_function: bool  # only when a function runs, not when the module is imported


class Scan(NamedTuple):
    torch: int  # NONE, IN_FUNCTION, CONDITIONAL or AT_IMPORT
    imports: tuple  # Import, in order of appearance, torch's own left out


def _names(text: str) -> list:
    """`a.b as c, d` or `(a,\n b)` -> ["a.b", "d"] (a trailing comment dropped)."""
    out = []
    for part in text.split("#")[0].replace("(", " ").replace(")", " ").replace("\\", " ").split(","):
        words = part.split()
        if words and re.fullmatch(r"[\w.*]+", words[0]):
            out.append(words[0])
    return out


def _statement(lines: list, i: int) -> str:
    """The import statement starting on line i, joined over brackets and backslashes."""
    text = lines[i]
    j = i + 1
    while j < len(lines) and (text.count("(") > text.count(")") or _LINE_END.search(text)):
        text = _LINE_END.sub(" ", text) + " " + lines[j]
        j += 1
    return text.strip()


def _modules(statement: str) -> list:
    """(name, level) of every module an import statement may load: `from .a import b` may load
    `.a` and `.a.b` (b a submodule); `import a.b.c` loads `a`, `a.b` and `a.b.c`."""
    out = []
    for piece in statement.split(";"):
        piece = piece.strip()
        m = _FROM.match(piece)
        if m:
            dots, base, rest = m.groups()
            level = len(dots)
            if base:
                out.append((base, level))
            for n in _names(rest):
                if n != "*":
                    out.append((f"{base}.{n}" if base else n, level))
            continue
        m = _IMPORT.match(piece)
        if m:
            for n in _names(m.group(1)):
                parts = n.split(".")
                out.extend((".".join(parts[:k]), 0) for k in range(1, len(parts) + 1))
    return out


def is_torch(name: str, level: int) -> bool:
    return level == 0 and (name == "torch" or name.startswith("torch."))


def scan(text: str) -> Scan:
    blocks: list = []  # (indent, is a def) of the def / TYPE_CHECKING blocks we are in
    torch = NONE
    imports: list = []
    seen: set = set()
    lines = text.split("\n")
    # Only import statements and block openers matter, and a block ends at the first of them
    # that is not indented more than its opener: the lines between need not be looked at.
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if not stripped.startswith(_RELEVANT):
            continue
        indent = len(line) - len(stripped)
        if "\t" in line[:indent]:
            indent = len(line[:indent].expandtabs(8))
        while blocks and indent <= blocks[-1][0]:
            blocks.pop()
        if stripped.startswith(_DEF):
            blocks.append((indent, True))
            continue
        if stripped.startswith(_TYPE_CHECKING):
            blocks.append((indent, False))
            continue
        if stripped.startswith(_OTHER_BLOCK):
            continue
        if blocks and not all(is_def for _, is_def in blocks):
            continue  # inside `if TYPE_CHECKING:`: never runs
        in_function = bool(blocks)
        how = IN_FUNCTION if in_function else (AT_IMPORT if indent == 0 else CONDITIONAL)
        for name, level in _modules(_statement(lines, i)):
            if is_torch(name, level):
                torch = max(torch, how)
            elif (name, level, in_function) not in seen:
                seen.add((name, level, in_function))
                imports.append(Import(name, level, in_function))
    return Scan(torch, tuple(imports))
