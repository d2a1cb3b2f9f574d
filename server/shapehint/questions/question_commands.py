"""`shapehint migrate | branches | holes` (JSON contracts in DESIGN §4)."""
from __future__ import annotations

import json
import sys

from ..sources import UsageError, analyze_path, load_config_for, read_source
from .assume import AssumeError, parse_assumption


def run(args) -> int:
    for a in getattr(args, "assume", []):
        try:
            parse_assumption(a)
        except AssumeError as e:
            raise UsageError(str(e))
    text = read_source(args.file)
    if text is None:
        raise UsageError(f"{args.file}: larger than the size cap")
    only = getattr(args, "function", None)
    # answers only: no records, no diagnostics (so not the compiler's own syntax errors);
    # `--function F` needs F's own analysis and no other's
    session = analyze_path(args.file, text, load_config_for(args.file), records=False,
                           functions=None if only is None else {only}, compile_errors=False)
    if only is not None and only not in session.result.functions:
        known = ", ".join(sorted(q for q in session.result.functions if not q.endswith(".__init__"))) or "none"
        raise UsageError(f"{args.file}: no function {only!r} (functions: {known})")
    try:
        if args.cmd == "migrate":
            from .migrate import answer_migration
            data = {"functions": answer_migration(session, args.assume, only)}
        elif args.cmd == "branches":
            from .branches import answer_branches
            data = {"branches": answer_branches(session, args.assume, entry=only)}
        else:
            from .holes import answer_holes
            data = {"holes": answer_holes(session)}
    except AssumeError as e:
        raise UsageError(str(e))
    if args.format == "json":
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _text(args.cmd, args.file, data)
    return 0


def _text(cmd: str, path: str, data: dict) -> None:
    w = sys.stdout.write
    if cmd == "migrate":
        for f in data["functions"]:
            w(f"{f['function']}: {f['status']}\n")
            for p in f["params"]:
                shape = "rank unknown" if p["shape"] is None else "[" + ", ".join(map(str, p["shape"])) + "]"
                w(f"  {p['name']}: {shape}" + (f"  (dims {p['dyn_dims']} can only be Dyn: {p['reason']})"
                                                 if p["dyn_dims"] else "") + "\n")
            for c in f["clash"]:
                w(f"  {path}:{c['line']}:{c['col'] + 1}: {c['message']}\n")
    elif cmd == "branches":
        for b in data["branches"]:
            w(f"{path}:{b['line']}:{b['col'] + 1}: {b['function']}: `{b.get('condition', '')}` is {b['status']}")
            wt = {k: v for k, v in b["witnesses"].items() if v}
            where = b.get("witness_function")
            inputs = f" (inputs of {where})" if wt and where and where != b["function"] else ""
            w("".join(f"; {k} for {v}" for k, v in wt.items()) + inputs + "\n")
    else:
        for h in data["holes"]:
            if h["status"] == "unique":
                desc = f"must be {h['value']}"
            elif h["status"] == "range":
                desc = f"any value in {h['lo']}..{h['hi'] if h['hi'] is not None else '∞'} (e.g. {h['examples']})"
            else:
                desc = h["status"] + (f": {h['note']}" if h["note"] else "")
            w(f"{path}:{h['line']}:{h['col'] + 1}: shape hole {desc}\n")
