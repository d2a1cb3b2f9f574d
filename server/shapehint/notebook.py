"""Jupyter notebooks: the code cells, in order, analysed as one module.

Used alike by the CLI (`check`, `infer`, `run --cell`), the language server (lsp/notebooks.py)
and the device run. Three steps, none of which moves a position:

- **Masking** IPython syntax that is not Python — line magics (`%matplotlib inline`), shell
  escapes (`!pip install`), help (`?obj`, `obj?`, `obj??`), assignments from them
  (`files = !ls`) and cell magics (`%%time` keeps its Python body; `%%bash`, `%%writefile` ...
  mask the whole cell) — by rewriting each such line in place at the same length, so every other
  column is exact. Only lines that start a statement are looked at (a `%` inside a string or a
  bracket is Python).
- **Confining syntax errors to their cell**: a cell that does not parse on its own is repaired
  on its own (`frontend.parse.repaired_lines`: its broken statements blanked), so an unclosed
  bracket cannot swallow the cells after it, and a cell that ends inside an `if` cannot borrow
  the next cell's indented lines. Its SH001s are reported by `cell_diagnostics`.
- **Joining**: each code cell's lines follow the previous cell's; `Joined.locate` maps a line of
  the module back to (cell, line within the cell). Cells are numbered 0-based among ALL cells
  (markdown and raw included), as the notebook file stores them; text output numbers them from 1,
  as editors show them.
Tests: tests/unit/test_notebook.py, tests/unit/test_notebook_cli.py, tests/lsp/test_notebooks.py.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Optional

# Cell magics whose body is Python run in the notebook's own namespace: only their first line
# is masked. Any other cell magic (`%%bash`, `%%writefile`, `%%html`, `%%python` in a
# subprocess) makes the whole cell something else.
PYTHON_BODY_MAGICS = {"time", "timeit", "capture", "prun", "debug"}

_ASSIGN_FROM = re.compile(r"^(\s*[A-Za-z_][\w.\[\], ]*?\s*=\s*)([!%].*)$")


class NotebookError(ValueError):
    """The file is not a notebook ShapeHint can read (one clear line)."""


@dataclass
class Cell:
    index: int  # among all cells
    kind: str  # "code" | "markdown" | "raw"
    source: str


@dataclass
class Notebook:
    cells: list
    language: str = "python"


def is_notebook(path: str) -> bool:
    return path.lower().endswith(".ipynb")


def read_notebook(text: str) -> Notebook:
    """Parse .ipynb JSON (nbformat 4, or 3's worksheets); raises NotebookError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"not valid notebook JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise NotebookError("not valid notebook JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise NotebookError("not a notebook: the JSON is not an object")
    raw = data.get("cells")
    if raw is None and isinstance(data.get("worksheets"), list):  # nbformat 3
        raw = [c for w in data["worksheets"] if isinstance(w, dict) for c in (w.get("cells") or [])]
    if not isinstance(raw, list):
        raise NotebookError("not a notebook: no \"cells\" list")
    cells = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("cell_type"), str):
            raise NotebookError(f"not a notebook: cell {i + 1} has no \"cell_type\"")
        src = c.get("source", c.get("input", ""))
        if isinstance(src, list) and all(isinstance(s, str) for s in src):
            src = "".join(src)
        if not isinstance(src, str):
            raise NotebookError(f"not a notebook: cell {i + 1}'s \"source\" is not text")
        cells.append(Cell(i, c["cell_type"], src))
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    info = meta.get("language_info") if isinstance(meta.get("language_info"), dict) else {}
    spec = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
    language = info.get("name") or spec.get("language") or "python"
    return Notebook(cells, str(language).lower())


# ---- masking ------------------------------------------------------------------------

def mask_cell(source: str) -> str:
    """The cell's text with IPython-only syntax rewritten in place (same lines, same lengths)."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = lines[0].lstrip()
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_BODY_MAGICS:
            return "\n".join(_comment(l) if l.strip() else l for l in lines)
        lines[0] = _comment(lines[0])
        start = 1
    else:
        start = 0
    scan = _Scanner()
    for i in range(start, len(lines)):
        if scan.at_statement_start():
            lines[i] = _mask_line(lines[i])
        scan.feed(lines[i])
    return "\n".join(lines)


def _mask_line(line: str) -> str:
    body = line.lstrip()
    if not body or body.startswith("#"):
        return line
    if body[0] in "%!?" and not body.startswith("!="):
        return _comment(line)
    if body.endswith("?") and re.fullmatch(r"[\w.\[\]()'\"]+\?{1,2}", body):  # obj? / obj??
        return _comment(line)
    m = _ASSIGN_FROM.match(line)
    if m and not m.group(2).startswith("!="):  # files = !ls, t = %timeit -o f()
        rhs = m.group(2)
        return m.group(1) + ("..." + " " * (len(rhs) - 3) if len(rhs) >= 3 else "()")
    return line


def _comment(line: str) -> str:
    """`%time f(x)` -> `pass#e f(x)` inside a block (the block stays non-empty), `#...` elsewhere."""
    indent = line[:len(line) - len(line.lstrip())]
    body = line[len(indent):]
    if not body:
        return line
    if indent and len(body) >= 5:
        return indent + "pass#" + body[5:]
    return indent + "#" + body[1:]


class _Scanner:
    """Tracks open brackets, triple-quoted strings and backslash continuations across lines,
    enough to tell whether the next line starts a statement."""

    def __init__(self):
        self.depth = 0
        self.triple: Optional[str] = None
        self.continued = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.triple is None and not self.continued

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        self.continued = False
        while i < n:
            if self.triple is not None:
                j = line.find(self.triple, i)
                while j > 0 and line[j - 1] == "\\" and (j < 2 or line[j - 2] != "\\"):
                    j = line.find(self.triple, j + 1)
                if j < 0:
                    return
                i, self.triple = j + 3, None
                continue
            ch = line[i]
            if ch == "#":
                return
            if ch in "\"'":
                if line.startswith(ch * 3, i):
                    self.triple, i = ch * 3, i + 3
                    continue
                i += 1
                while i < n and line[i] != ch:
                    i += 2 if line[i] == "\\" else 1
                i += 1
                continue
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth = max(0, self.depth - 1)
            elif ch == "\\" and i == n - 1:
                self.continued = True
            i += 1


# ---- joining ------------------------------------------------------------------------

@dataclass
class CellProblem:
    cell: int
    line: int  # within the cell, 1-based
    col: int
    end_line: int
    end_col: int
    message: str


@dataclass
class Joined:
    """The module made of the code cells; lines of the module are 1-based, as in the analysis."""

    text: str
    cells: list  # every Cell of the notebook
    starts: dict = field(default_factory=dict)  # code cell index -> lines before it in `text`
    counts: dict = field(default_factory=dict)  # code cell index -> its number of lines
    problems: list = field(default_factory=list)  # [CellProblem]: syntax errors, per cell

    def locate(self, line: int) -> Optional[tuple]:
        """Module line (1-based) -> (cell index, line within the cell, 1-based)."""
        order = list(self.starts)  # cells in notebook order, so their starts ascend
        i = bisect.bisect_left([self.starts[c] for c in order], line) - 1
        if i < 0:
            return None
        cell = order[i]
        start = self.starts[cell]
        return (cell, line - start) if line <= start + self.counts[cell] else None

    def module_line(self, cell: int, line: int) -> int:
        return self.starts[cell] + line

    def cell_text(self, cell: int) -> str:
        """The cell as analysed (masked, repaired)."""
        lines = self.text.split("\n")
        start = self.starts[cell]
        return "\n".join(lines[start:start + self.counts[cell]])

    def span(self, line: int, col: int, end_line: int, end_col: int) -> Optional[dict]:
        """A module range -> {cell, line, col, end_line, end_col} within one cell (a range that
        runs into a later cell is cut at the end of its first cell)."""
        where = self.locate(line)
        if where is None:
            return None
        cell, l0 = where
        end = self.locate(end_line)
        if end is None or end[0] != cell:
            last = self.cell_text(cell).split("\n")
            end = (cell, len(last))
            end_col = len(last[-1])
        return {"cell": cell, "line": l0, "col": col, "end_line": end[1], "end_col": end_col}


def join(notebook: Notebook, upto: Optional[int] = None, code_cells: Optional[set] = None) -> Joined:
    """Join the code cells (those up to and including cell `upto`, when given). `code_cells`
    overrides which cells count as Python code (the editor knows each cell's language)."""
    parts: list = []
    out = Joined("", list(notebook.cells))
    from .frontend.parse import repaired_lines
    for c in notebook.cells:
        if upto is not None and c.index > upto:
            break
        is_code = c.index in code_cells if code_cells is not None else c.kind == "code"
        if not is_code:
            continue
        fixed, errors = repaired_lines(mask_cell(c.source))
        for e in errors:
            out.problems.append(CellProblem(c.index, e.line, e.col, e.end_line, e.end_col, e.message))
        out.starts[c.index] = len(parts)
        out.counts[c.index] = len(fixed)
        parts.extend(fixed)
    out.text = "\n".join(parts)
    return out


def cell_diagnostics(joined: Joined) -> list:
    """The cells' own syntax errors as SH001 diagnostics in module lines (the joined text is valid,
    so the analysis itself sees none of them)."""
    from .analysis.result import Diagnostic
    return [Diagnostic(joined.module_line(p.cell, p.line), p.col, joined.module_line(p.cell, p.end_line),
                       p.end_col, "error", "SH001", p.message) for p in joined.problems]


# ---- results in cell positions (CLI JSON, text, SARIF) --------------------------------

def map_diagnostic(joined: Joined, d: dict, path: str) -> dict:
    """A diagnostic's JSON (module lines) -> the same with `cell` and positions within the cell;
    `related` items in the notebook get their own `cell`."""
    out = dict(d)
    where = joined.span(d["line"], d["col"], d["end_line"], d["end_col"])
    if where is not None:
        out.update(where)
    related = []
    for r in d.get("related", []):
        r = dict(r)
        if not r.get("file") or r["file"] == path:
            at = joined.locate(r["line"])
            if at is not None:
                r["cell"], r["line"] = at
        related.append(r)
    out["related"] = related
    return out


def map_infer(joined: Joined, data: dict, path: str) -> dict:
    """`infer` JSON of the joined module -> values and diagnostics with `cell` (DESIGN §4)."""
    out = dict(data)
    values = []
    for v in data.get("values", []):
        at = joined.locate(v["line"])
        if at is None:
            continue
        v = dict(v)
        v["cell"], v["line"] = at
        if v.get("contexts"):  # "QUALNAME:LINE" names a module line: say its cell and line too
            v["contexts"] = [_context_cell(joined, c) for c in v["contexts"]]
        values.append(v)
    out["values"] = values
    out["diagnostics"] = [map_diagnostic(joined, d, path) for d in data.get("diagnostics", [])]
    return out


def _context_cell(joined: Joined, context: dict) -> dict:
    qual, _, line = str(context.get("context", "")).rpartition(":")
    at = joined.locate(int(line)) if qual and line.isdigit() else None
    return context if at is None else dict(context, cell=at[0], line=at[1])


def place(path: str, item: dict) -> str:
    """`nb.ipynb:cell 3:5:9` for text output (cells and columns from 1), `file.py:5:9` otherwise."""
    if "cell" in item:
        return f"{path}:cell {item['cell'] + 1}:{item['line']}:{item['col'] + 1}"
    return f"{path}:{item['line']}:{item['col'] + 1}"


def map_run(joined: Joined, result: dict) -> dict:
    """A device run's result over the joined cells -> `lines`, `mismatches`, `observed` and errors
    with `cell` and lines within it (`run --cell`)."""
    def fix(item):
        if isinstance(item, dict) and isinstance(item.get("line"), int):
            at = joined.locate(item["line"])
            if at is not None:
                item["cell"], item["line"] = at
    for key in ("lines", "mismatches", "observed"):
        for item in result.get(key) or []:
            if not (key == "mismatches" and "cell" in item):  # mismatches are items of `lines`
                fix(item)
    fix(result.get("error"))
    for e in result.get("entries") or []:
        fix(e.get("error"))
        fix(e.get("not_observable"))
    return result


def load(path: str, text: Optional[str] = None, upto: Optional[int] = None) -> Joined:
    """Read and join a notebook file; NotebookError with one clear line for anything unusable."""
    if text is None:
        try:
            with open(path, encoding="utf-8-sig") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as e:
            raise NotebookError(f"cannot read it ({getattr(e, 'strerror', None) or e})") from None
    nb = read_notebook(text)
    if nb.language not in ("python", "python3"):
        raise NotebookError(f"a {nb.language} notebook, not Python")
    if upto is not None and not 0 <= upto < len(nb.cells):
        raise NotebookError(f"no cell {upto}: cells are numbered 0 to {len(nb.cells) - 1}")
    return join(nb, upto=upto)
