"""The repository's `shared/` data (settings, diagnostic codes, commands), which the server and the
editor extension both read. Installed, it is the package `shapehint._shared` (pyproject's
package-dir); run from a source checkout with only `server/` on the path (the device-run script on
a GPU machine, `PYTHONPATH=server`), that package does not exist and the folder beside `server/` is it."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path


@lru_cache(maxsize=None)
def read_json(name: str):
    try:
        text = resources.files("shapehint._shared").joinpath(name).read_text("utf-8")
    except ModuleNotFoundError:
        text = (Path(__file__).resolve().parents[2] / "shared" / name).read_text("utf-8")
    return json.loads(text)
