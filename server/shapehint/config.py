"""Project configuration (`[tool.shapehint]` in pyproject.toml) and suppression comments.

Used by the CLI and the language server alike, so it imports neither pygls nor lsprotocol.

Keys of `[tool.shapehint]` are the settings of the repository's `shared/settings.json` without
the `shapehint.` prefix, in kebab-case (snake_case is accepted too), plus `include`/`exclude`:

    [tool.shapehint]
    severity = { SH201 = "error" }       # shapehint.severity
    disabled-codes = ["SH301"]           # shapehint.disabledCodes
    max-file-size-kb = 512               # shapehint.maxFileSizeKb
    include = ["src/**/*.py"]            # glob patterns relative to the pyproject's folder
    exclude = ["build/**"]
    [tool.shapehint.solver]
    timeout-ms = 3000                    # shapehint.solver.timeoutMs
    rlimit = 5000000                     # shapehint.solver.rlimit

Invalid values are reported as problems (the caller turns them into SH003) and the default is
used. `apply_config` filters and re-grades an analysis's diagnostics: disabled codes, severity
overrides, and `# shapehint: ignore` / `# shapehint: ignore[SH201, SH204]` on the line where a
diagnostic starts. Tests: tests/unit/test_config.py.
"""
from __future__ import annotations

import fnmatch
import io
import os
import re
import tokenize
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Iterable, Optional

from .shared_files import read_json

SEVERITIES = ("error", "warning", "information", "hint")
_SUPPRESS = re.compile(r"#\s*shapehint\s*:\s*ignore\b(?:\s*\[([^\]]*)\])?", re.IGNORECASE)


@lru_cache(maxsize=None)
def settings_schema() -> dict:
    """The settings declared in the repository's shared/settings.json (name -> JSON schema)."""
    return read_json("settings.json")


@lru_cache(maxsize=None)
def known_codes() -> frozenset:
    return frozenset(read_json("diagnostics.json")["codes"])


def validate(name: str, schema: dict, value: Any) -> Optional[str]:
    """Why `value` is not valid for the setting `name` (None when it is)."""
    kind = schema.get("type")
    ok_type = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
    }.get(kind, lambda v: True)
    if not ok_type(value):
        return f"{name}: expected {kind}, got {value!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{name}: {value!r} is not one of {', '.join(map(str, schema['enum']))}"
    if "minimum" in schema and value < schema["minimum"]:
        return f"{name}: {value!r} is below the minimum {schema['minimum']}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{name}: {value!r} is above the maximum {schema['maximum']}"
    items = schema.get("items")
    if kind == "array" and items:
        for item in value:
            why = validate(name + "[]", items, item)
            if why:
                return why
    if name.endswith("severity"):
        return _check_severity_map(name, value)
    if name.endswith("disabledCodes"):
        bad = [c for c in value if c not in known_codes()]
        if bad:
            return f"{name}: unknown code(s) {', '.join(bad)}"
    return None


def _check_severity_map(name: str, value: dict) -> Optional[str]:
    for code, sev in value.items():
        if code not in known_codes():
            return f"{name}: unknown code {code}"
        if sev not in SEVERITIES:
            return f"{name}: severity of {code} must be one of {', '.join(SEVERITIES)}, got {sev!r}"
    return None


@dataclass
class Config:
    """Effective configuration for one project root (defaults where nothing was set)."""

    severity: dict = field(default_factory=dict)  # code -> severity
    disabled_codes: frozenset = frozenset()
    timeout_ms: int = 10000
    rlimit: int = 2_000_000
    max_file_size_kb: int = 2048
    include: tuple = ()
    exclude: tuple = ()
    root: Optional[str] = None  # folder of the pyproject.toml it came from
    problems: list = field(default_factory=list)  # invalid entries (reported as SH003)

    def is_included(self, path: str) -> bool:
        """Whether include/exclude (relative to the pyproject's folder) select `path`."""
        rel = os.path.abspath(path)
        if self.root:
            try:
                rel = os.path.relpath(rel, self.root)
            except ValueError:  # another drive
                pass
        rel = rel.replace(os.sep, "/")
        if self.include and not any(_glob(rel, p) for p in self.include):
            return False
        return not any(_glob(rel, p) for p in self.exclude)

    def solver_limits(self):
        from .solver.facts import Limits
        return Limits(timeout_ms=self.timeout_ms, rlimit=self.rlimit)


def _glob(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return (fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern + "/*")
            or fnmatch.fnmatchcase(rel, pattern.replace("**/", "")))


# Setting name (shared/settings.json) -> Config field.
_FIELDS = {
    "shapehint.severity": "severity",
    "shapehint.disabledCodes": "disabled_codes",
    "shapehint.solver.timeoutMs": "timeout_ms",
    "shapehint.solver.rlimit": "rlimit",
    "shapehint.maxFileSizeKb": "max_file_size_kb",
}


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", name).lower()


def _lookup(table: dict, dotted: str):
    """The value of a dotted setting path in a TOML table, kebab- or snake-case; KeyError if absent."""
    item: Any = table
    for seg in dotted.split("."):
        if not isinstance(item, dict):
            raise KeyError(dotted)
        for key in (_kebab(seg), _kebab(seg).replace("-", "_"), seg):
            if key in item:
                item = item[key]
                break
        else:
            raise KeyError(dotted)
    return item


def config_from_table(table: dict, root: Optional[str] = None) -> Config:
    """Build a Config from a `[tool.shapehint]` table; invalid entries become problems."""
    schema = settings_schema()
    cfg = Config(root=root)
    for name, fld in _FIELDS.items():
        try:
            value = _lookup(table, name[len("shapehint."):])
        except KeyError:
            continue
        why = validate(name, schema[name], value)
        if why:
            cfg.problems.append(f"[tool.shapehint] {why}; using the default")
            continue
        setattr(cfg, fld, frozenset(value) if fld == "disabled_codes" else value)
    for key in ("include", "exclude"):
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not (isinstance(value, list) and all(isinstance(p, str) for p in value)):
            cfg.problems.append(f"[tool.shapehint] {key}: expected a list of glob patterns")
            continue
        setattr(cfg, key, tuple(value))
    return cfg


def find_pyproject(start_dir: str) -> Optional[str]:
    """The nearest pyproject.toml at or above `start_dir` that has a [tool.shapehint] table,
    else the nearest pyproject.toml, else None."""
    d = os.path.abspath(start_dir if os.path.isdir(start_dir) else os.path.dirname(start_dir))
    first = None
    while True:
        cand = os.path.join(d, "pyproject.toml")
        if os.path.isfile(cand):
            first = first or cand
            try:
                with open(cand, encoding="utf-8") as f:
                    if re.search(r"^\s*\[tool\.shapehint[\].]", f.read(), re.M):
                        return cand
            except OSError:
                pass
        parent = os.path.dirname(d)
        if parent == d:
            return first
        d = parent


def load_config(start_dir: str) -> Config:
    """Configuration for files under `start_dir` (defaults when no pyproject.toml says otherwise)."""
    path = find_pyproject(start_dir)
    if path is None:
        return Config()
    root = os.path.dirname(path)
    try:
        data = _load_toml(path)
    except Exception as exc:  # malformed TOML: report, fall back to defaults
        return Config(root=root, problems=[f"{path}: cannot read [tool.shapehint]: {exc}"])
    table = data.get("tool", {}).get("shapehint", {})
    if not isinstance(table, dict):
        return Config(root=root, problems=[f"{path}: [tool.shapehint] must be a table"])
    return config_from_table(table, root)


def _load_toml(path: str) -> dict:
    try:
        import tomllib  # Python ≥ 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    with open(path, "rb") as f:
        return tomllib.load(f)


# ---- suppression comments ---------------------------------------------------

def parse_suppressions(text: str) -> dict:
    """line (1-based) -> frozenset of suppressed codes, or None for a bare `# shapehint: ignore`.

    Only real comments count (tokenize); when the file does not tokenize (a syntax error), a
    line-based scan is used instead.
    """
    if _SUPPRESS.search(text) is None:  # no comment can match: skip the tokenize (most files)
        return {}
    out: dict = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                _add_suppression(out, tok.start[0], tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        out = {}
        for i, line in enumerate(text.splitlines(), start=1):
            if "#" in line:
                _add_suppression(out, i, line[line.index("#"):])
    return out


def comment_suppressions(comments: dict) -> dict:
    """`parse_suppressions` from the comments a parse already found (line -> text after `#`):
    the language server's way, since tokenizing a 2,000-line file again costs tens of ms."""
    out: dict = {}
    for line, text in comments.items():
        if "shapehint" in text.lower():
            _add_suppression(out, line, "#" + text)
    return out


def _add_suppression(out: dict, line: int, comment: str) -> None:
    m = _SUPPRESS.search(comment)
    if not m:
        return
    if m.group(1) is None:
        out[line] = None
        return
    codes = frozenset(c.strip().upper() for c in m.group(1).split(",") if c.strip())
    out[line] = codes if codes else None


def is_suppressed(suppressions: dict, line: int, code: str) -> bool:
    if line not in suppressions:
        return False
    codes = suppressions[line]
    return codes is None or code in codes


def apply_config(diagnostics: Iterable, text_or_suppressions, config: Optional[Config]) -> list:
    """Diagnostics left after disabled codes and suppression comments, with severity overrides.

    `text_or_suppressions` is the source text or the result of `parse_suppressions`. Diagnostic
    objects are copied (dataclasses.replace), never mutated.
    """
    config = config or Config()
    supp = (parse_suppressions(text_or_suppressions) if isinstance(text_or_suppressions, str)
            else dict(text_or_suppressions or {}))
    out = []
    for d in diagnostics:
        if d.code in config.disabled_codes or is_suppressed(supp, d.line, d.code):
            continue
        sev = config.severity.get(d.code)
        out.append(replace(d, severity=sev) if sev and sev != d.severity else d)
    return out
