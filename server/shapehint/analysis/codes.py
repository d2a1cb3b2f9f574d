"""Diagnostic codes and their default severities, read from the repository's shared/ data."""
from __future__ import annotations

from functools import lru_cache

from ..shared_files import read_json


@lru_cache(maxsize=None)
def codes() -> dict:
    return read_json("diagnostics.json")["codes"]


def severity(code: str) -> str:
    return codes().get(code, {}).get("severity", "error")


def docs_url(code: str) -> str:
    base = read_json("diagnostics.json")["docsBase"]
    return f"{base}{code}.md"
