"""Where a `shapehint` command's CPU time goes, by sampling the stack on CPU time (issue 23).

    python bench/cpu_sample.py [--every MS] [--top N] [--stacks FILE] -- check FILE ... --jobs 1 --no-cache --quiet

Runs the command in this process (`cli.main`, the server of this checkout) with a SIGPROF
timer, which the kernel fires per MS milliseconds of the process's CPU time (user+sys), and
counts the Python stack at each: the share of samples is the share of CPU time. Prints each
function's self and inclusive shares (a function counted once per sample however deep it
recurses); `--stacks` writes the samples as collapsed stacks (`a;b;c COUNT`, flamegraph.pl's
input).

Why not a wall-clock sampler (py-spy): on a loaded machine a thread loses its core mostly at
a system call, so wall-clock samples pile up on the lines that make one. On the shared 2-core
machine (load ~9) py-spy put 10 % of `check`'s samples on the per-file budget's clock read
(`project/analyse.Deadline.used`), called once per 64 steps, a thousand times per file at 4 µs:
~0.1 % of the CPU time, 0.6 % here. cProfile inflates the interpreter's many small calls
several times over (bench/profile_infer.py). Signals reach the main thread only, between
bytecodes: a C call (Z3, `compile`) is counted at its Python caller. With --jobs above 1 the
workers are not sampled. A tool for looking, not a benchmark of record.
"""
from __future__ import annotations

import argparse
import collections
import os
import signal
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _frame_name(code) -> str:
    return f"{getattr(code, 'co_qualname', code.co_name)} ({os.path.basename(code.co_filename)})"


def sample(argv: list, every_ms: float) -> collections.Counter:
    """Collapsed stacks of the command `argv` (the CLI's arguments) -> samples."""
    sys.path.insert(0, os.path.join(ROOT, "server"))
    from shapehint import cli
    stacks: collections.Counter = collections.Counter()

    def on_tick(_sig, frame):
        names = []
        while frame is not None:
            names.append(_frame_name(frame.f_code))
            frame = frame.f_back
        stacks[";".join(reversed(names))] += 1

    previous = signal.signal(signal.SIGPROF, on_tick)
    signal.setitimer(signal.ITIMER_PROF, every_ms / 1000, every_ms / 1000)
    try:
        cli.main(argv)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, previous)
    return stacks


def shares(stacks: collections.Counter) -> tuple:
    """(total samples, self samples by function, inclusive samples by function)."""
    own: collections.Counter = collections.Counter()
    inclusive: collections.Counter = collections.Counter()
    for stack, n in stacks.items():
        names = stack.split(";")
        own[names[-1]] += n
        for name in set(names):
            inclusive[name] += n
    return sum(stacks.values()), own, inclusive


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=float, default=4.0, help="milliseconds of CPU time between samples")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--stacks", help="write the collapsed stacks here")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- then the shapehint command's arguments")
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("give the command after --")
    stacks = sample(command, args.every)
    if args.stacks:
        with open(args.stacks, "w", encoding="utf-8") as fh:
            fh.writelines(f"{stack} {n}\n" for stack, n in stacks.items())
    total, own, inclusive = shares(stacks)
    print(f"\n{total} samples, {total * args.every / 1000:.1f} CPU s", file=sys.stderr)
    for title, counts in (("self", own), ("inclusive", inclusive)):
        print(f"--- {title}", file=sys.stderr)
        for name, n in counts.most_common(args.top):
            print(f"{100 * n / total:5.1f} %  {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
