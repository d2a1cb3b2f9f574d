"""Diagnostic codes and their default severities, read from the repository's shared/ data."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def codes() -> dict:
    return json.loads(resources.files("shapehint._shared").joinpath("diagnostics.json").read_text("utf-8"))["codes"]


def severity(code: str) -> str:
    return codes().get(code, {}).get("severity", "error")


def docs_url(code: str) -> str:
    base = json.loads(resources.files("shapehint._shared").joinpath("diagnostics.json").read_text("utf-8"))["docsBase"]
    return f"{base}{code}.md"
