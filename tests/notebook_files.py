"""Notebooks for the tests (written here, never copied from elsewhere)."""
import json


def notebook(cells, language="python") -> str:
    """.ipynb JSON text; `cells` is [(kind, source)], kind "code" | "markdown" | "raw"."""
    out = []
    for kind, source in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        out.append(cell)
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": out,
                       "metadata": {"kernelspec": {"name": "python3", "language": language},
                                    "language_info": {"name": language}}}, indent=1)


# markdown, magics, a clash whose related lines are in another cell, a broken cell, %%time
CELLS = [
    ("markdown", "# A tiny model\n"),
    ("code", "%matplotlib inline\nimport torch\nimport torch.nn as nn\n!pip install einops"),
    ("code", "x = torch.zeros(8, 3)\nw = torch.zeros(4, 5)"),
    ("code", "broken = torch.cat([x,\n"),
    ("code", "z = x @ w\nx?"),
    ("code", "%%time\nq = x.sum(0)"),
]
