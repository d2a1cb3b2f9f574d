"""[tool.shapehint] loading and validation, suppression comments, apply_config; settings
parsing (shared/settings.json) and its merge with the project's configuration."""
from __future__ import annotations

from dataclasses import dataclass, field

from shapehint.config import Config, apply_config, config_from_table, load_config, parse_suppressions


@dataclass
class D:  # the fields apply_config uses, like analysis.result.Diagnostic
    line: int
    code: str
    severity: str = "error"
    related: list = field(default_factory=list)


def _write(tmp_path, body: str):
    (tmp_path / "pyproject.toml").write_text(body)
    sub = tmp_path / "pkg" / "deep"
    sub.mkdir(parents=True)
    return sub


def test_load_config_from_a_parent_folder(tmp_path):
    sub = _write(tmp_path, """
[project]
name = "x"

[tool.shapehint]
severity = { SH201 = "error" }
disabled-codes = ["SH301"]
max_file_size_kb = 64
include = ["pkg/**/*.py"]
exclude = ["pkg/deep/gen_*.py"]

[tool.shapehint.solver]
timeout-ms = 500
rlimit = 1000
""")
    cfg = load_config(str(sub))
    assert cfg.problems == []
    assert cfg.severity == {"SH201": "error"} and cfg.disabled_codes == {"SH301"}
    assert (cfg.timeout_ms, cfg.rlimit, cfg.max_file_size_kb) == (500, 1000, 64)
    assert cfg.root == str(tmp_path)
    assert cfg.is_included(str(sub / "model.py"))
    assert cfg.is_included(str(tmp_path / "pkg" / "m.py"))
    assert not cfg.is_included(str(sub / "gen_1.py"))
    assert not cfg.is_included(str(tmp_path / "other.py"))


def test_invalid_entries_are_reported_and_defaults_kept(tmp_path):
    cfg = config_from_table({"severity": {"SH201": "fatal"}, "disabled-codes": ["SH999"],
                             "solver": {"timeout-ms": 1}, "include": 3})
    assert cfg.severity == {} and cfg.disabled_codes == frozenset() and cfg.timeout_ms == 10000
    text = "\n".join(cfg.problems)
    assert "fatal" in text and "SH999" in text and "timeoutMs" in text and "include" in text


def test_malformed_toml_and_missing_file(tmp_path):
    assert load_config(str(tmp_path)) == Config() or load_config(str(tmp_path)).problems == []
    _write(tmp_path, "[tool.shapehint\nx = ")
    cfg = load_config(str(tmp_path))
    assert cfg.problems and cfg.timeout_ms == 10000


def test_suppressions_are_read_from_comments_only():
    text = ('x = 1  # shapehint: ignore[SH201, sh204]\n'
            'y = "# shapehint: ignore"\n'
            'z = 2  # shapehint: ignore\n'
            'w = 3  # [B, T]  # shapehint:ignore[SH204]\n')
    supp = parse_suppressions(text)
    assert supp == {1: {"SH201", "SH204"}, 3: None, 4: {"SH204"}}


def test_suppressions_from_the_parsers_comments_equal_a_tokenizer_scan():
    from shapehint.config import comment_suppressions
    from shapehint.frontend.parse import parse_module
    text = ('x = 1  # shapehint: ignore[SH201, sh204]\n'
            'y = "# shapehint: ignore"\n'
            's = """\n# shapehint: ignore\n"""\n'
            'z = 2  #shapehint:IGNORE  \n'
            'w = 3  # [B, T]  # shapehint:ignore[SH204]\n'
            'v = 4  # shapehint: ignore[]\n')
    assert comment_suppressions(parse_module(text).comments) == parse_suppressions(text)


def test_suppressions_survive_a_syntax_error():
    assert parse_suppressions("def f(:\n    x = (  # shapehint: ignore[SH001]\n") == {2: {"SH001"}}


def test_apply_config_filters_and_regrades():
    diags = [D(1, "SH201", "warning"), D(1, "SH101"), D(2, "SH301", "hint"), D(3, "SH101"), D(4, "SH204", "warning")]
    text = "a  # shapehint: ignore[SH201]\nb\nc  # shapehint: ignore\nd\n"
    cfg = Config(severity={"SH204": "error"}, disabled_codes=frozenset({"SH301"}))
    out = apply_config(diags, text, cfg)
    assert [(d.line, d.code, d.severity) for d in out] == [(1, "SH101", "error"), (4, "SH204", "error")]
    assert diags[4].severity == "warning", "inputs are not mutated"


def test_settings_parse_validate_and_merge():
    from shapehint.lsp.settings import Settings, effective_config, parse_settings
    assert Settings().inlay_hints == "assignments" and Settings().solver.timeout_ms == 10000
    p = parse_settings({"inlayHints": "all", "solver": {"timeoutMs": 5, "rlimit": 10},
                        "severity": {"SH201": "error"}, "unknown": 1})
    assert p.settings.inlay_hints == "all" and p.settings.solver.rlimit == 10
    assert p.settings.solver.timeout_ms == 10000 and len(p.problems) == 1 and "timeoutMs" in p.problems[0]
    flat = parse_settings({"shapehint.inlayHints": "off", "shapehint.disabledCodes": ["SH301"]})
    assert flat.settings.inlay_hints == "off" and flat.settings.disabled_codes == ["SH301"]
    nested = parse_settings({"shapehint": {"deviceRun": {"device": "cpu"}}})
    assert nested.settings.device_run.device == "cpu"

    project = Config(severity={"SH201": "warning", "SH204": "error"}, disabled_codes=frozenset({"SH202"}),
                     timeout_ms=700, rlimit=99)
    cfg = effective_config(project, p)
    assert cfg.severity == {"SH201": "error", "SH204": "error"}
    assert cfg.disabled_codes == {"SH202"}
    assert cfg.rlimit == 10, "an explicit editor value wins"
    assert cfg.timeout_ms == 700, "an invalid editor value leaves the project's"
    defaults = effective_config(project, parse_settings({"solver": {"rlimit": 2000000}}))
    assert defaults.rlimit == 99, "an editor value equal to its default does not override the project"
