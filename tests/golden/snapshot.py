"""The golden snapshot: the answers of `shapehint infer --format json` and `shapehint check
--format json` (answer fields only: the commands print no timings) on every program the tests
and benchmarks know — shared/examples/, tests/cases/, bench/peer/programs/ and two bench/gen.py
modules. A refactoring of the analysis core must leave every answer as it was.

    python tests/golden/snapshot.py            # regenerate tests/golden/answers.json
    python tests/golden/snapshot.py --diff     # print the programs whose answers changed

Taken first at 25957ec (before the core was split into components).
"""
from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ANSWERS = os.path.join(HERE, "answers.json")
# interpreter steps of each command's analysis: a refactoring of the core runs the same steps
# (`check` runs with the call memo on, `infer` with it off: both must stay put)
STEPS = os.path.join(HERE, "steps.json")
# (lines, seed) of the generated modules: big enough to hold every kind of block twice, small
# enough to keep the test to a few seconds
GENERATED = ((300, 0), (1000, 1))


def programs() -> list:
    """(label, path) of every program the snapshot covers; the label is its path from the root."""
    found = []
    for pattern in ("shared/examples/*.py", "tests/cases/*.py", "bench/peer/programs/*.py"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            if not os.path.basename(path).startswith("_"):
                found.append((os.path.relpath(path, ROOT), path))
    return found


def generated(tmp: str) -> list:
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import gen
    finally:
        sys.path.pop(0)
    out = []
    for lines, seed in GENERATED:
        path = os.path.join(tmp, f"gen_{lines}_{seed}.py")
        with open(path, "w") as f:
            f.write(gen.generate(lines, seed))
        out.append((f"bench/gen.py {lines} --seed {seed}", path))
    return out


def _command(argv: list, steps: list) -> dict:
    """The command's JSON; the steps of the analysis it ran are appended to `steps`."""
    from shapehint import cli
    from shapehint.analysis import api  # what `check` (project/analyse.py) and `infer` both call
    analyze_session = api.analyze_session  # (`analyze_source` is its result)

    def counted(*args, **kwargs):
        session = analyze_session(*args, **kwargs)
        steps.append(session.result.stats.get("steps"))
        return session
    out = io.StringIO()
    api.analyze_session = counted
    try:
        with contextlib.redirect_stdout(out):
            cli.main(argv)
    finally:
        api.analyze_session = analyze_session
    return json.loads(out.getvalue())


def answers_of(label: str, path: str) -> tuple:
    """({"infer": JSON, "check": JSON}, {"infer": steps, "check": steps})."""
    infer_steps: list = []
    check_steps: list = []
    infer = _command(["infer", path, "--format", "json"], infer_steps)
    # no cache: a cached answer runs no analysis, so it would record no steps
    check = _command(["check", path, "--format", "json", "--no-cache", "--jobs", "1"], check_steps)
    infer["file"] = label  # where the program lay is no answer
    for f in check["files"]:
        f["file"] = label
    return {"infer": infer, "check": check}, {"infer": infer_steps, "check": check_steps}


def current() -> tuple:
    answers, steps = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in programs() + generated(tmp):
            answers[label], steps[label] = answers_of(label, path)
    return answers, steps


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if set(argv) - {"--diff"}:
        print("usage: python tests/golden/snapshot.py [--diff]\n"
              "  without --diff: regenerate the snapshot (after reviewing what changed)", file=sys.stderr)
        return 2
    answers, steps = current()
    if "--diff" in argv:
        changed = []
        for name, now in ((ANSWERS, answers), (STEPS, steps)):
            with open(name) as f:
                old = json.load(f)
            changed += [f"{os.path.basename(name)}: {k}" for k in sorted(set(old) | set(now)) if old.get(k) != now.get(k)]
        for k in changed:
            print(k)
        return 1 if changed else 0
    for name, now in ((ANSWERS, answers), (STEPS, steps)):
        with open(name, "w") as f:
            json.dump(now, f, indent=1, sort_keys=True)
            f.write("\n")
    print(f"{len(answers)} programs written to {os.path.relpath(ANSWERS, ROOT)} and {os.path.relpath(STEPS, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "server"))
    sys.exit(main())
