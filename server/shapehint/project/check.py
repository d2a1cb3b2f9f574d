"""`shapehint check` over many files: cheap skip, cache, parallel workers, progress, statistics.

The run, in order:
  1. find the files (`sources.expand_paths`), their configuration (one `load_config` per folder),
     and read them (the same one-line errors and SH002 size notes as for a single file);
  2. skip what does not use PyTorch (`deps.Project.uses_torch`): no analysis, no diagnostics;
  3. look the others up in the cache (`cache.file_key`): a hit is the answer;
  4. analyse the misses, in this process when there are fewer than two or `--jobs 1`, else
     in `pool.Pool`'s workers, each within the per-file time budget (`analyse.py`, SH005);
  5. print the report in the files' order (`emit_check`), whatever the order of
     completion, so the output is the same with and without cache and for any `--jobs`.

Progress goes to stderr only when stderr is a terminal and `--quiet` is not given;
`--statistics` goes to stderr whatever `--format` (stdout carries only the report).

Tests: tests/unit/test_check_repo.py.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Optional

from .. import notebook
from ..notebook import is_notebook
from . import cache as cachemod
from .analyse import DEFAULT_BUDGET_S, analyse
from .deps import Project
from .pool import DEFAULT_MEMORY_MB, Pool


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclass
class Stats:
    files: int = 0
    not_torch: int = 0
    cached: int = 0
    analysed: int = 0
    budget_hits: int = 0
    failed: int = 0
    workers: int = 0
    seconds: dict = field(default_factory=dict)  # path -> analysis seconds (this run's analyses)
    skipped: list = field(default_factory=list)  # paths not using PyTorch
    from_cache: list = field(default_factory=list)

    def dump(self, path: str, wall: float, jobs: int) -> None:
        """`--timings`: where a repository's time went, by file (bench/repo.py names the slow tail)."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"wall_s": round(wall, 2), "jobs": jobs, "analysed_s": self.seconds,
                       "not_torch": self.skipped, "cached": self.from_cache}, fh, indent=1, sort_keys=True)

    def write(self, wall: float, jobs: int, cache) -> None:
        w = sys.stderr.write
        w(f"shapehint: {self.files} file{'s' if self.files != 1 else ''} checked in {wall:.2f} s "
          f"(--jobs {jobs}, {self.workers} worker process{'es' if self.workers != 1 else ''} started)\n")
        w(f"  not using PyTorch (skipped): {self.not_torch}\n")
        w(f"  from the cache: {self.cached}" + (f" (cache {cache.dir})\n" if cache else " (--no-cache)\n"))
        w(f"  analysed: {self.analysed}, over the time budget (SH005): {self.budget_hits}, failed: {self.failed}\n")
        slowest = sorted(self.seconds.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        if slowest:
            w("  slowest:\n")
            for path, s in slowest:
                w(f"    {s:8.2f} s  {path}\n")


class Progress:
    """`[done/total] path` on one line of a terminal, redrawn at most ten times a second."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled = total, enabled and total > 0
        self.done = 0
        self._last = 0.0

    def step(self, path: str) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and (now - self._last >= 0.1 or self.done == self.total):
            self._last = now
            sys.stderr.write(f"\r\x1b[K[{self.done}/{self.total}] {path}"[:200])
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _configs():
    """load_config_for, once per folder (a repository has thousands of files in hundreds of
    folders, and each lookup reads pyproject files up to the root)."""
    from ..sources import load_config_for
    memo: dict = {}

    def get(path: str):
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in memo:
            memo[folder] = load_config_for(path)
        return memo[folder]
    return get


def _warm_up() -> None:
    """Import the analysis and build its operator registry once, before the workers are forked
    from this process: each would otherwise do it again (and again after each recycling). What
    start-up made is then frozen out of the collector's walks, whose writes to object headers
    would otherwise copy the pages the workers share with this process."""
    from ..analysis.api import warm_up
    from ..gc_policy import settle
    warm_up()
    settle()


def _reusable(entry: Optional[dict], budget_s: Optional[float]) -> bool:
    """A cached answer stands unless it ran out of a smaller time budget than this run's."""
    if entry is None:
        return False
    ran_out = entry.get("budget")
    return ran_out is None or (budget_s is not None and budget_s <= ran_out)


def run_check(args) -> int:
    started = time.perf_counter()
    errors: list = []
    budget_s = args.time_budget if args.time_budget and args.time_budget > 0 else None
    jobs = args.jobs if args.jobs else default_jobs()
    cache = None if args.no_cache else cachemod.Cache(args.cache_dir or cachemod.default_dir(args.paths))
    stats = Stats()
    todo = _read(args.paths, errors)
    stats.files = len(todo)
    paths = [path for path, _, _ in todo]
    results, keys, tasks = _plan(todo, cache, budget_s, stats)
    del todo  # the texts of a repository (tens of MB) need not stay here while workers run

    progress = Progress(len(tasks), enabled=not args.quiet and sys.stderr.isatty())

    def landed(i: int, out: dict) -> None:
        results[i] = out
        if out.get("failed"):
            stats.failed += 1
            sys.stderr.write(f"shapehint: {paths[i]}: not analysed ({out['failed']})\n")
        else:
            stats.analysed += 1
            stats.budget_hits += out.get("budget") is not None
            stats.seconds[paths[i]] = out.get("seconds", 0.0)
            if cache is not None:
                cache.put(keys[i], out)
        progress.step(paths[i])

    try:
        _execute(tasks, jobs, args.worker_memory_mb or DEFAULT_MEMORY_MB, landed, stats)
    finally:
        progress.close()
    if cache is not None and cache.writes:
        cache.prune()

    report = [{"file": path, "diagnostics": results[i]["diagnostics"]} for i, path in enumerate(paths)]
    emit_check(report, args.format)
    for e in errors:
        sys.stderr.write(f"shapehint: {e}\n")
    if args.statistics:
        stats.write(time.perf_counter() - started, jobs, cache)
    if getattr(args, "timings", None):
        stats.dump(args.timings, time.perf_counter() - started, jobs)
    if errors:
        return 2
    return 1 if any(d["severity"] == "error" for f in report for d in f["diagnostics"]) else 0


def _read(paths: list, errors: list) -> list:
    """[(path, text, config)] of the files to report, in order; unreadable paths go to `errors`,
    invalid configuration entries (SH003) and files over the size cap (SH002) to stderr."""
    from ..sources import DEFAULT_MAX_KB, NOTEBOOK_FILE_MAX_KB, UsageError, expand_paths, read_source
    config_for = _configs()
    explicit = {os.path.abspath(p) for p in paths}
    reported_problems: set = set()
    todo: list = []
    for path in expand_paths(paths, errors):
        config = config_for(path)
        if config is not None:
            for problem in config.problems:  # invalid [tool.shapehint] entries: once each (SH003)
                if problem not in reported_problems:
                    reported_problems.add(problem)
                    sys.stderr.write(f"shapehint: SH003 {problem}\n")
            if os.path.abspath(path) not in explicit and not config.is_included(path):
                continue  # found by walking a folder, excluded by [tool.shapehint]
        max_kb = getattr(config, "max_file_size_kb", DEFAULT_MAX_KB) if config is not None else DEFAULT_MAX_KB
        try:
            text = _module_text(path, read_source(path, NOTEBOOK_FILE_MAX_KB if is_notebook(path) else max_kb))
        except UsageError as e:
            errors.append(str(e))
            continue
        if text is None or len(text.encode("utf-8")) > max_kb * 1024:
            what = "its code cells are larger" if text is not None else "larger"
            sys.stderr.write(f"shapehint: {path}: skipped, {what} than {max_kb} KB (SH002)\n")
            continue
        todo.append((path, text, config))
    return todo


def _module_text(path: str, text: Optional[str]) -> Optional[str]:
    """The Python module a file stands for: a notebook's code cells joined (notebook.py), so the
    scan, the cache key and the analysis all see the code and not the outputs; the worker joins
    the cells again to map positions back (`analyse`)."""
    if text is None or not is_notebook(path):
        return text
    from ..sources import UsageError
    try:
        return notebook.load(path, text).text
    except notebook.NotebookError as e:
        raise UsageError(f"{path}: {e}") from None


def _plan(todo: list, cache, budget_s: Optional[float], stats: Stats) -> tuple:
    """(results, keys, tasks): the answers known without analysing (not PyTorch: none; a cache
    hit: the entry), each file's cache key, and the analyses still to run."""
    project = Project({p: t for p, t, _ in todo}, scans=cache.load_scans() if cache else None)
    results: list = [None] * len(todo)
    keys: list = [None] * len(todo)
    tasks: list = []
    for i, (path, text, config) in enumerate(todo):
        if not project.uses_torch(path):
            results[i] = {"diagnostics": []}
            stats.not_torch += 1
            stats.skipped.append(path)
            continue
        if cache is not None:
            keys[i] = cachemod.file_key(project, path, config)
            entry = cache.get(keys[i])
            if _reusable(entry, budget_s):
                results[i] = entry
                stats.cached += 1
                stats.from_cache.append(path)
                continue
        tasks.append((i, path, text, config, budget_s))
    if cache is not None:
        cache.save_scans(project.scans, {project.digest(p) for p in project.read_paths()})
    return results, keys, tasks


def _execute(tasks: list, jobs: int, memory_mb: float, landed, stats: Stats) -> None:
    """Run the analyses: here when a pool would not pay for itself, else in worker processes."""
    if jobs == 1 or len(tasks) < 2:
        for i, path, text, config, budget_s in tasks:
            landed(i, analyse(path, text, config, budget_s))
        return
    _warm_up()
    pool = Pool(jobs, memory_mb=memory_mb)
    try:
        pool.run(tasks, landed)
    finally:
        stats.workers = pool.started


def emit_check(report: list, fmt: str) -> None:
    if fmt == "json":
        json.dump({"files": report}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif fmt == "sarif":
        from ..sarif import to_sarif
        json.dump(to_sarif(report), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        place = notebook.place
        n = 0
        for f in report:
            for d in f["diagnostics"]:
                n += 1
                sys.stdout.write(f"{place(f['file'], d)}: {d['severity']} {d['code']} {d['message']}\n")
                for r in d["related"]:
                    sys.stdout.write(f"    {place(r.get('file', f['file']), r)}: note: {r['message']}\n")
        errs = sum(d["severity"] == "error" for f in report for d in f["diagnostics"])
        sys.stdout.write(f"{len(report)} file{'s' if len(report) != 1 else ''} checked, {errs} error"
                         f"{'s' if errs != 1 else ''}, {n - errs} other diagnostic{'s' if n - errs != 1 else ''}\n")
