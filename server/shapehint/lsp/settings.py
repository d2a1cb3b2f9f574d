"""Client settings, declared once as data in the repository's shared/settings.json.

The schema (`shapehint.solver.timeoutMs`, ...) becomes a fully defaulted tree of dataclasses
built at import time (`Settings().solver.timeout_ms`); `parse_settings` accepts what clients
send — nested (`{"shapehint": {"solver": {"timeoutMs": 10}}}`, or the `shapehint` section
itself) or flat dotted keys — validates every value against the schema, keeps the default for
an invalid one and returns the problems (the server reports them as SH003 / showMessage).

`effective_config` merges the settings with a project's `[tool.shapehint]`: a value the editor
sets explicitly to something other than its default wins, otherwise the project's, otherwise
the default; severity maps are merged (editor over project) and disabled codes are united.
Tests: tests/lsp/test_settings.py (through the server) and tests/unit/test_config.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, make_dataclass, replace
from typing import Any

from ..config import Config, settings_schema, validate

PREFIX = "shapehint."


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _tree(schema: dict) -> dict:
    """{"solver": {"timeoutMs": schema, ...}, "inlayHints": schema, ...}"""
    root: dict = {}
    for name, entry in schema.items():
        *parents, leaf = name[len(PREFIX):].split(".")
        node = root
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = entry
    return root


def _is_leaf(node: dict) -> bool:
    return "type" in node and not isinstance(node.get("type"), dict)


def _make_class(cls_name: str, node: dict) -> type:
    specs = []
    for key, child in node.items():
        if _is_leaf(child):
            default = child.get("default")
            specs.append((_snake(key), Any, field(default_factory=lambda d=default: _copy(d))))
        else:
            sub = _make_class(cls_name + key[0].upper() + key[1:], child)
            specs.append((_snake(key), sub, field(default_factory=sub)))
    return make_dataclass(cls_name, specs, frozen=True)


def _copy(value):
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


Settings = _make_class("Settings", _tree(settings_schema()))


@dataclass
class Parsed:
    settings: Any
    problems: list = field(default_factory=list)
    explicit: set = field(default_factory=set)  # setting names the client gave (valid ones)


def _flatten(raw: Any, prefix: str = "") -> dict:
    out: dict = {}
    if not isinstance(raw, dict):
        return out
    for key, value in raw.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and (PREFIX + name if not name.startswith(PREFIX) else name) \
                not in settings_schema():
            out.update(_flatten(value, name))
        else:
            out[name] = value
    return out


def parse_settings(raw: Any) -> Parsed:
    """Validate what the client sent; unknown keys are ignored, invalid values reported."""
    schema = settings_schema()
    if isinstance(raw, dict) and isinstance(raw.get("shapehint"), dict) and len(raw) == 1:
        raw = raw["shapehint"]
    flat = _flatten(raw)
    values: dict = {}
    problems: list = []
    for key, value in flat.items():
        name = key if key.startswith(PREFIX) else PREFIX + key
        if name not in schema or value is None:
            continue
        why = validate(name, schema[name], value)
        if why:
            problems.append(f"{why}; using the default {schema[name].get('default')!r}")
            continue
        values[name] = value
    return Parsed(_build(values), problems, set(values))


def _build(values: dict):
    settings = Settings()
    for name, value in values.items():
        settings = _set(settings, name[len(PREFIX):].split("."), value)
    return settings


def _set(obj, path: list, value):
    key = _snake(path[0])
    if len(path) == 1:
        return replace(obj, **{key: value})
    return replace(obj, **{key: _set(getattr(obj, key), path[1:], value)})


def get(settings, name: str):
    """A setting by its schema name (`shapehint.solver.rlimit`)."""
    obj = settings
    for seg in name[len(PREFIX):].split("."):
        obj = getattr(obj, _snake(seg))
    return obj


def effective_config(project: Config, parsed: Parsed) -> Config:
    """The project's Config with the editor's explicit settings applied over it."""
    s = parsed.settings
    schema = settings_schema()

    def pick(name: str, project_value):
        value = get(s, name)
        if name in parsed.explicit and value != schema[name].get("default"):
            return value
        return project_value

    return replace(
        project,
        severity={**project.severity, **get(s, "shapehint.severity")},
        disabled_codes=frozenset(project.disabled_codes) | frozenset(get(s, "shapehint.disabledCodes")),
        timeout_ms=pick("shapehint.solver.timeoutMs", project.timeout_ms),
        rlimit=pick("shapehint.solver.rlimit", project.rlimit),
        max_file_size_kb=pick("shapehint.maxFileSizeKb", project.max_file_size_kb),
        problems=list(project.problems),
    )


def field_names(settings) -> list:
    return [f.name for f in fields(settings)]
