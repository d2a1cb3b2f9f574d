"""Totals, Markdown tables, the README section and `--compare` for the real-model benchmark."""
from __future__ import annotations

import os

from score import VERDICTS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKERS = ("<!-- realmodels:start -->", "<!-- realmodels:end -->")


def _add(acc: dict, mode: dict) -> None:
    for k in VERDICTS + ("lines",):
        acc[k] = acc.get(k, 0) + mode["counts"][k]
    acc["false_errors"] = acc.get("false_errors", 0) + len(mode["false_errors"])
    acc["crashes"] = acc.get("crashes", 0) + (1 if mode["crash"] else 0)
    acc["infer_s"] = round(acc.get("infer_s", 0) + (mode["infer_s"] or 0), 2)
    acc["models"] = acc.get("models", 0) + 1


def totals(models: dict) -> dict:
    """{"all": {mode: counts}, "packages": {pkg: {mode: counts}}, "execution_failures": [...]}."""
    out = {"all": {}, "packages": {}, "execution_failures": []}
    for mid, m in models.items():
        if m["execution"]["error"]:
            out["execution_failures"].append(mid)
            continue
        for mode, r in m["modes"].items():
            if "counts" not in r:
                continue
            _add(out["all"].setdefault(mode, {}), r)
            _add(out["packages"].setdefault(m["package"], {}).setdefault(mode, {}), r)
    return out


def pct(n, d) -> str:
    return "—" if not d else "%.1f %%" % (100.0 * n / d)


def table(head: list, rows: list) -> str:
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] +
                     ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def _row(name, mode, c) -> list:
    n = c.get("lines", 0)
    return [name, mode, c.get("models", ""), n, "%d (%s)" % (c["right"], pct(c["right"], n)),
            "%d (%s)" % (c["partial"], pct(c["partial"], n)), "%d (%s)" % (c["wrong"], pct(c["wrong"], n)),
            "%d (%s)" % (c["missing"], pct(c["missing"], n)), c["false_errors"], c["crashes"], "%.0f" % c["infer_s"]]


HEAD = ["", "mode", "models", "tensor lines", "right", "partial", "wrong", "missing", "false errors", "crashes",
        "infer s"]


def totals_md(res: dict) -> str:
    t = res.get("totals") or totals(res["models"])
    rows = [_row("**all**", mode, c) for mode, c in t["all"].items()]
    for pkg in sorted(t["packages"]):
        rows += [_row(pkg, mode, c) for mode, c in t["packages"][pkg].items()]
    md = table(HEAD, rows)
    if t["execution_failures"]:
        md += "\n\nModels that failed to run (not counted): " + ", ".join(t["execution_failures"])
    return md


def models_md(res: dict) -> str:
    modes = res.get("modes") or ["raw", "annotated"]
    head = ["model", "file", "lines"] + ["%s R/P/W/M" % m for m in modes] + ["false errors", "infer s (raw)", "note"]
    rows = []
    for mid, m in sorted(res["models"].items(), key=lambda kv: (kv[1]["package"], kv[0])):
        if m["execution"]["error"]:
            rows.append([mid, m["file"], "—"] + ["—"] * len(modes) + ["—", "—", "did not run: %s" %
                                                                    m["execution"]["error"]["type"]])
            continue
        cells, note, lines = [], [], "—"
        for mode in modes:
            r = m["modes"].get(mode, {})
            if "counts" not in r:
                cells.append("—")
                note.append("%s: %s" % (mode, r.get("skipped", "not run")))
                continue
            c = r["counts"]
            lines = c["lines"]
            cells.append("/".join(str(c[v]) for v in VERDICTS))
            if r["crash"]:
                note.append("%s crash: %s" % (mode, "; ".join("%s %s" % kv for kv in r["crash"].items())[:80]))
        raw = m["modes"].get("raw") or next(iter(m["modes"].values()), {})
        fe = "/".join(str(len(m["modes"][md].get("false_errors", []))) for md in modes if md in m["modes"])
        rows.append([mid, "`%s`" % m["file"].split("/models/")[-1], lines] + cells +
                     [fe, raw.get("infer_s", "—"), "; ".join(note).replace("|", "\\|")])
    return table(head, rows)


def header(res: dict) -> str:
    v = res.get("versions", {})
    merged = " (re-run since: %s)" % ", ".join(res["merged"]) if res.get("merged") else ""
    return ("Taken at commit `%s`%s%s on %s: torchvision %s, timm %s, transformers %s; ShapeHint `infer`/`check` "
            "per file (limit %ss), %s job(s). R/P/W/M = right/partial/wrong/missing per executed tensor "
            "(line, name); false errors = error diagnostics on these working models (raw/annotated).%s" % (
                res.get("commit"), " (server/ modified)" if res.get("server_dirty") else "",
                " (server/ tree `%s`)" % res["server_tree"] if res.get("server_tree") else "", res.get("date"),
                v.get("torchvision"), v.get("timm"), v.get("transformers"), res.get("timeout_s"), res.get("jobs"), merged))


def render(res: dict) -> str:
    return "\n\n".join([header(res), totals_md(res), models_md(res)])


def readme_md(res: dict) -> str:
    return "\n\n".join([header(res), totals_md(res),
                        "<details><summary>Per model</summary>\n\n" + models_md(res) + "\n\n</details>"])


def update_readme(md: str, path: str = os.path.join(ROOT, "README.md")) -> bool:
    if not os.path.exists(path):
        return False
    with open(path, encoding="utf-8") as f:
        text = f.read()
    a, b = MARKERS
    i, j = text.find(a), text.find(b)
    if i < 0 or j < i:
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:i + len(a)] + "\n" + md + "\n" + text[j:])
    return True


def lines_md(res: dict, mid: str) -> str:
    m = res["models"].get(mid)
    if m is None:
        return "no model %r in this result" % mid
    out = []
    for mode, r in m["modes"].items():
        rows = [[k, v["function"], v["verdict"], v["observations"], (v["example"] or {}).get("observed"),
                 (v["example"] or {}).get("shape")] for k, v in r.get("lines", {}).items()]
        out.append("### %s, %s\n\n" % (mid, mode) + table(["line:name", "function", "verdict", "obs", "observed (one)",
                                                          "ShapeHint"], rows))
        if r.get("false_errors"):
            out.append("False errors: " + "; ".join("line %s %s %s" % (e["line"], e["code"], e["message"])
                                                    for e in r["false_errors"]))
    return "\n\n".join(out)


def compare_md(old: dict, new: dict) -> str:
    """Every (model, mode, line:name) whose verdict differs, then the change of each total."""
    rows, moves = [], {}
    for mid, m in sorted(new["models"].items()):
        o = old.get("models", {}).get(mid)
        if o is None:
            rows.append([mid, "", "", "(new model)", ""])
            continue
        for mode, r in m["modes"].items():
            a, b = o.get("modes", {}).get(mode, {}).get("lines", {}), r.get("lines", {})
            for key in sorted(set(a) | set(b), key=lambda k: (int(k.split(":")[0]), k)):
                va, vb = (a.get(key) or {}).get("verdict", "—"), (b.get(key) or {}).get("verdict", "—")
                if va != vb:
                    rows.append([mid, mode, key, va, vb])
                    moves[(va, vb)] = moves.get((va, vb), 0) + 1
    summary = ", ".join("%s→%s: %d" % (a, b, n) for (a, b), n in sorted(moves.items())) or "no verdict changed"
    both = set(old.get("models", {})) & set(new["models"])  # a run of a few models compares with those few
    ta = totals({k: v for k, v in old.get("models", {}).items() if k in both})["all"]
    tb = totals({k: v for k, v in new["models"].items() if k in both})["all"]
    deltas = []
    for mode in tb:
        if mode in ta:
            deltas.append("%s: " % mode + ", ".join("%s %+d" % (v, tb[mode][v] - ta[mode][v])
                                                   for v in VERDICTS + ("false_errors", "crashes")))
    return "\n\n".join(["## Verdict changes (%s vs %s, %d models in both)" % (new.get("commit"), old.get("commit"),
                                                                           len(both)), summary,
                        "; ".join(deltas), table(["model", "mode", "line:name", "before", "after"], rows) if rows else ""])
