"""SARIF 2.1.0 output for `shapehint check --format sarif` (1-based columns)."""
from __future__ import annotations

from . import __version__
from .analysis import codes

LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def to_sarif(report: list) -> dict:
    used = sorted({d["code"] for f in report for d in f["diagnostics"]})
    rules = [{"id": c, "name": codes.codes().get(c, {}).get("title", c),
              "shortDescription": {"text": codes.codes().get(c, {}).get("title", c)},
              "fullDescription": {"text": codes.codes().get(c, {}).get("summary", "")},
              "helpUri": codes.docs_url(c)} for c in used]
    results = []
    for f in report:
        for d in f["diagnostics"]:
            result = {
                "ruleId": d["code"], "level": LEVEL.get(d["severity"], "note"), "message": {"text": d["message"]},
                "locations": [_loc(f["file"], d["line"], d["col"], d["end_line"], d["end_col"], d.get("cell"))],
                "relatedLocations": [dict(_loc(r.get("file", f["file"]), r["line"], r["col"], cell=r.get("cell")),
                                          id=i, message={"text": r["message"]}) for i, r in enumerate(d["related"])],
            }
            if "cell" in d:  # a notebook: the region is inside this cell (0-based among all cells)
                result["properties"] = {"cell": d["cell"]}
            results.append(result)
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "shapehint", "version": __version__, "rules": rules}},
                      "results": results}]}


def _loc(path: str, line: int, col: int, end_line=None, end_col=None, cell=None) -> dict:
    region = {"startLine": line, "startColumn": col + 1}
    if end_line is not None:
        region.update(endLine=end_line, endColumn=(end_col or col) + 1)
    loc = {"physicalLocation": {"artifactLocation": {"uri": path}, "region": region}}
    if cell is not None:
        loc["properties"] = {"cell": cell}
    return loc
