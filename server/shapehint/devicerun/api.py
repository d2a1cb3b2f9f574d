"""Device run API: run the user's module in a child interpreter and compare shapes.

`device_run(...)` returns the DESIGN §4 `shapehint run` JSON object (plus compatible extras:
`summary`, `observed` for inlay hints, `entries`, `notes`, `stdout`, `command`);
`to_diagnostics(result)` turns it into contract diagnostics (SH501 mismatch, SH502 runtime error).

Invariants:
- Nothing is executed unless `device_run` is called, and never when `trusted` is False.
- The user's code runs only in the child (`runner.py` in `interpreter`), in its own session and
  process group; on timeout or cancel the group gets SIGTERM (the runner then writes a partial
  result naming the line it was on), then SIGKILL after a grace period; after every run the group
  is killed, so nothing the module started is left running.
- Memory: RLIMIT_AS bounds cpu/meta runs (a clean MemoryError in the user's line); a resident-size
  watchdog bounds every run (CUDA maps too much address space for RLIMIT_AS).
- The child's stdout/stderr are drained continuously and only a bounded head is kept.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Optional

from . import compare as cmp
from .inferred import complete, stamp_sources
from .inputs import PlanError, param_dims_by_function, parse_input, plan_entries

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner.py")
GRACE_S = 3.0
STARTUP_S = 120.0  # interpreter start and `import torch`, before the user's time limit starts
OUTPUT_KEEP = 65536
SIGNALS = {signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "abort", signal.SIGBUS: "bus error",
           signal.SIGFPE: "floating-point exception", signal.SIGILL: "illegal instruction",
           signal.SIGKILL: "killed (out of memory?)"}


def _default_memory_mb() -> int:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        return max(2048, int(pages * size / 2 / 2**20))
    except (ValueError, OSError):
        return 8192


def _result(path, device, error=None, **extra) -> dict:
    out = {"file": path, "device": device, "entry": None, "inputs": {}, "lines": [], "mismatches": [],
           "error": error, "summary": {"match": 0, "mismatch": 0, "not-inferred": 0, "not-observable": 0,
                                       "not_executed": 0, "observed": 0, "agreement": None},
           "observed": [], "entries": [], "notes": []}
    out.update(extra)
    return out


def _err(etype, message, line=None, **extra) -> dict:
    return dict({"line": line, "type": etype, "message": message}, **extra)


def normalize_inputs(inputs) -> dict:
    """{name: "2,3:long" | [2, 3] | {"shape", "dtype"}} or ["name=2,3"] -> {name: spec}."""
    out = {}
    if not inputs:
        return out
    items = inputs.items() if isinstance(inputs, dict) else (parse_input(s) for s in inputs)
    for name, spec in items:
        if isinstance(spec, str):
            spec = parse_input(f"{name}={spec}")[1]
        elif isinstance(spec, (list, tuple)):
            spec = {"shape": [int(d) for d in spec], "dtype": None}
        out[name] = dict(spec)
    return out


def plan(path: str, text: str, entry=None, inputs=None, ctor_args=None, build=None) -> tuple:
    """(runnable EntryPlans, skipped [{entry, reason}]); raises PlanError when an explicit entry
    cannot run. With no runnable entry, only the module's top-level code runs (its import)."""
    plans = plan_entries(text, entry, normalize_inputs(inputs), ctor_args, build)
    complete(plans, path, text)
    runnable = [p for p in plans if not p.problem]
    for p in runnable:
        stamp_sources(p)
    skipped = [{"entry": p.qualname, "reason": p.problem} for p in plans if p.problem]
    if entry and skipped:
        raise PlanError(skipped[0]["reason"])
    # a refusal only when nothing runs the entry: code of the file that calls it (a script's or a
    # notebook's top level) gives it its inputs when the module runs
    refused = [p for p in plans if p.problem and p.unknown and not p.helper]
    if not runnable and refused:
        raise PlanError(refused[0].problem)
    if inputs and not runnable:
        raise PlanError("--input given but no entry can take it; choose one with --entry")
    return runnable, skipped


def describe(path: str, runnable: list, device: str, interpreter: str, timeout: float) -> str:
    lines = [f"shapehint run: about to execute {path} with {interpreter} on device {device} "
             f"(time limit {timeout:g} s)", "  its top-level code (import)"]
    for p in runnable:
        args = ", ".join(f"{k}={v['expr']}" for k, v in p.ctor_args.items())
        call = p.ctor_expr or f"{p.qualname}({args})"
        call += f".{p.method}" if p.kind == "class" else ""
        ins = p.candidates[0] if p.candidates else {}
        shown = ", ".join(f"{k}={v['value']}" if "value" in v else f"{k}=[{', '.join(map(str, v['shape']))}]"
                          + (f":{v['dtype']}" if v.get("dtype") not in (None, "float32") else "") for k, v in ins.items())
        lines.append(f"  {call}({shown})" + ("  (first of %d candidate input sets checked on meta)" % len(
            p.candidates) if len(p.candidates) > 1 else ""))
    return "\n".join(lines)


class _Drain(threading.Thread):
    """Reads a pipe to its end, keeping a bounded head (so a flooding child never blocks)."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.head, self.dropped = stream, bytearray(), 0

    def run(self):
        while True:
            chunk = self.stream.read(65536)
            if not chunk:
                break
            room = OUTPUT_KEEP - len(self.head)
            self.head += chunk[:max(room, 0)]
            self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        return self.head.decode("utf-8", "replace") + (f"\n[... {self.dropped} bytes dropped]" if self.dropped else "")


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _killpg(pid: int, sig) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def execute(request: dict, interpreter: str, timeout: float, cancel_event=None,
            memory_limit_mb: Optional[int] = None) -> dict:
    """Runs runner.py on `request`; returns the runner's JSON plus {"process": {...}} (never raises
    for anything the child does)."""
    mem = memory_limit_mb or _default_memory_mb()
    with tempfile.TemporaryDirectory(prefix="shapehint-run-") as tmp:
        req_path, res_path = os.path.join(tmp, "request.json"), os.path.join(tmp, "result.json")
        ready = os.path.join(tmp, "ready")
        request = dict(request, result_path=res_path, fault_path=os.path.join(tmp, "fault.txt"), ready_path=ready)
        # RLIMIT_AS is set by the runner itself (no preexec_fn: unsafe in a threaded server), above
        # what importing torch mapped (runner.limit_address_space)
        if request.get("device") in ("cpu", "meta"):
            request["address_space_mb"] = mem
        with open(req_path, "w") as f:
            json.dump(request, f)
        env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
        cmd = [interpreter, RUNNER, req_path]
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True, cwd=tmp, env=env)
        except OSError as exc:
            return {"error": _err("InterpreterNotFound", f"cannot start {interpreter}: {exc}"), "process": {}}
        drains = [_Drain(proc.stdout), _Drain(proc.stderr)]
        for d in drains:
            d.start()
        t0, stopped, t_user = time.monotonic(), None, None
        try:
            while proc.poll() is None:
                now = time.monotonic()
                if t_user is None and os.path.exists(ready):
                    t_user = now
                if cancel_event is not None and cancel_event.is_set():
                    stopped = "Cancelled"
                elif (now - t_user > timeout) if t_user is not None else (now - t0 > timeout + STARTUP_S):
                    stopped = "Timeout"
                elif _rss_mb(proc.pid) > mem:
                    stopped = "OutOfMemory"
                if stopped:
                    _killpg(proc.pid, signal.SIGTERM if stopped != "OutOfMemory" else signal.SIGKILL)
                    try:
                        proc.wait(GRACE_S)
                    except subprocess.TimeoutExpired:
                        pass
                    break
                time.sleep(0.02)
        finally:
            _killpg(proc.pid, signal.SIGKILL)  # the runner and anything it started
            proc.wait()
            for d in drains:
                d.join(5)
        elapsed = time.monotonic() - t0
        run = None
        if os.path.exists(res_path):
            with open(res_path, encoding="utf-8") as f:
                run = json.load(f)
        fault = ""
        if os.path.exists(request["fault_path"]):
            with open(request["fault_path"], errors="replace") as f:
                fault = f.read(OUTPUT_KEEP)
    process = {"returncode": proc.returncode, "elapsed_s": round(elapsed, 3), "stderr": drains[1].text(),
               "stdout": drains[0].text(), "command": cmd}
    run = run or {"calls": [], "entries": []}
    run["process"] = process
    rc = proc.returncode
    if stopped == "Timeout":
        e = run.get("error") or {}
        run["error"] = _err("Timeout", f"the run took longer than the time limit of {timeout:g} s and was stopped",
                            e.get("line"), function=e.get("function"))
    elif stopped == "Cancelled":
        run["error"] = _err("Cancelled", "the run was cancelled", (run.get("error") or {}).get("line"))
    elif stopped == "OutOfMemory":
        run["error"] = _err("OutOfMemory", f"the run used more than {mem} MiB of memory and was stopped",
                            _fault_line(fault, request["path"]))
    elif rc is not None and rc < 0 and not run.get("ok"):
        sig = -rc
        name = signal.Signals(sig).name if sig in signal.Signals.__members__.values() else str(sig)
        run["error"] = _err(name, f"the interpreter died of signal {name} ({SIGNALS.get(sig, 'signal')}) while "
                                  f"running the module", _fault_line(fault, request["path"]))
    elif not run.get("ok") and run.get("error") is None:
        tail = drains[1].text().strip().splitlines()[-3:]
        run["error"] = _err("Exited", f"the interpreter exited with status {rc} without a result (os._exit or a "
                                      f"crash in the module?)" + (": " + " | ".join(tail) if tail else ""),
                            _fault_line(fault, request["path"]))
    return run


def _fault_line(fault: str, path: str) -> Optional[int]:
    """The innermost frame of the user's file in a faulthandler dump (most recent call first)."""
    needle = f'File "{os.path.abspath(path)}", line '
    for line in fault.splitlines():
        i = line.find(needle)
        if i >= 0:
            try:
                return int(line[i + len(needle):].split()[0])
            except ValueError:
                return None
    return None


def _inferred(text: str, path: str, notes: list) -> Optional[dict]:
    try:
        from ..analysis.api import analyze_source
        return analyze_source(text, path).infer_json()
    except Exception as exc:  # noqa: BLE001 - no inference: every line is "not-inferred"
        notes.append(f"shape inference unavailable ({type(exc).__name__}: {exc}); lines are not compared")
        return None


def device_run(path: str, text: Optional[str] = None, entry: Optional[str] = None, device: str = "auto",
               inputs=None, interpreter: str = sys.executable, timeout: float = 120, trusted: bool = True,
               cancel_event: Optional[threading.Event] = None, ctor_args: Optional[dict] = None,
               infer: Optional[dict] = None, memory_limit_mb: Optional[int] = None,
               on_start: Optional[Callable[[str], None]] = None, limits: Optional[dict] = None,
               build: Optional[str] = None) -> dict:
    """Run `path` (with the editor's `text`, saved or not) and compare observed with inferred shapes.

    inputs: {name: "2,16:long" | [2, 16] | {"shape", "dtype"}}; ctor_args: {name: python expression};
    build: a Python expression that builds the entry class's instance (a factory call), instead of ctor_args;
    infer: a precomputed `infer_json()` (else `analyze_source` is called); on_start: receives the
    description of what is about to run, before anything runs."""
    path = os.path.abspath(path)
    if device not in ("auto", "cuda", "cpu", "meta"):
        return _result(path, device, _err("UsageError", f"unknown device {device!r}: use auto, cuda, cpu or meta"))
    if not trusted:
        return _result(path, device, _err("Untrusted", "device run executes the module's code and is disabled "
                                                       "in untrusted workspaces"), refused=True)
    if text is None:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            return _result(path, device, _err("UsageError", f"cannot read {path}: {exc}"))
    try:
        runnable, skipped = plan(path, text, entry, inputs, ctor_args, build)
    except PlanError as exc:
        return _result(path, device, _err("UsageError", str(exc)))
    except SyntaxError as exc:
        return _result(path, device, _err("SyntaxError", str(exc), exc.lineno))
    if cancel_event is not None and cancel_event.is_set():
        return _result(path, device, _err("Cancelled", "the run was cancelled before it started"))
    if on_start is not None:
        on_start(describe(path, runnable, device, interpreter, timeout))
    notes = []
    infer_json = infer if infer is not None else _inferred(text, path, notes)
    request = {"path": path, "source": text, "device": device, "entries": [p.request() for p in runnable],
               "limits": limits or {}, "dry_run_seconds": max(1.0, timeout / 4)}
    run = execute(request, interpreter, timeout, cancel_event, memory_limit_mb)
    return assemble(path, text, device, run, infer_json, skipped, notes)


def device_run_many(paths: list, device: str = "cpu", interpreter: str = sys.executable, timeout: float = 120,
                    trusted: bool = True) -> list:
    """`device_run` for several files with one interpreter start (one torch import): for CI and
    corpus checks. Inferences come from `analyze_source`; a file whose job got no result (its
    module crashed or hung the shared process) is run again alone."""
    if not trusted:
        return [device_run(p, trusted=False) for p in paths]
    prepared, jobs = [], []
    for p in paths:
        p = os.path.abspath(p)
        try:
            with open(p, encoding="utf-8") as f:
                text = f.read()
            runnable, skipped = plan(p, text)
        except (OSError, PlanError, SyntaxError):
            prepared.append((p, None, None, None, None))  # device_run reports it
            continue
        notes: list = []
        infer = _inferred(text, p, notes)
        prepared.append((p, text, skipped, notes, infer))
        jobs.append({"path": p, "source": text, "entries": [e.request() for e in runnable],
                     "dry_run_seconds": max(1.0, timeout / 4)})
    batch = execute({"path": jobs[0]["path"] if jobs else "", "device": device, "jobs": jobs}, interpreter,
                    timeout * max(1, len(jobs)) / 2) if jobs else {}
    done = {os.path.abspath(j.get("path", "")): j for j in batch.get("jobs", []) if j.get("ok") or j.get("error")}
    out = []
    for p, text, skipped, notes, infer in prepared:
        job = done.get(p)
        if text is None or job is None or (job.get("error") or {}).get("type") == "Timeout":
            out.append(device_run(p, device=device, interpreter=interpreter, timeout=timeout, infer=infer))
        else:
            out.append(assemble(p, text, device, job, infer, skipped, notes))
    return out


def assemble(path, text, device, run, infer_json, skipped=(), notes=()) -> dict:
    """The contract object from a runner result (also used by tests with hand-made inferences)."""
    dims = param_dims_by_function(text)
    try:
        comp = cmp.compare(run, infer_json, dims, text, path)
    except Exception as exc:  # noqa: BLE001 - a bad inference must not hide the run itself
        comp = {"lines": [], "mismatches": [], "summary": None, "observed": []}
        notes = list(notes) + [f"comparison failed: {type(exc).__name__}: {exc}"]
    entries, error, not_observable = [], run.get("error"), None
    refused = None
    for e in run.get("entries", []):
        if e.get("refused"):
            refused = refused or e["refused"]
            entries.append({"entry": e["entry"], "skipped": e["refused"]})
            continue
        if e.get("skipped"):
            entries.append({"entry": e["entry"], "skipped": e["skipped"]})
            continue
        err = e.get("error")
        item = {"entry": e["entry"], "kind": e.get("kind"), "inputs": e.get("inputs", {}),
                "ctor_args": e.get("ctor_args", {}), "error": None, "note": e.get("note")}
        if err and err.get("data_dependent") and run.get("device") == "meta":
            item["not_observable"] = {"line": err.get("line"), "message": err.get("message")}
        elif err:
            item["error"] = _err(err["type"], err["message"], err.get("line"), function=err.get("function"),
                                 operands=err.get("operands") or [])
            if error is None:
                error = dict(item["error"], entry=e["entry"])
        entries.append(item)
    for s in skipped:
        entries.append({"entry": s["entry"], "skipped": s["reason"]})
    first = next((e for e in entries if "skipped" not in e), None)
    if first is None and refused and error is None:
        error = _err("UsageError", refused)
    if first is None and skipped:
        notes = list(notes) + ["no entry could be called (see entries[].skipped): only the module's top-level "
                               "code ran; choose one with --entry and give what it needs"]
    if error is not None:
        error = {k: v for k, v in error.items() if k != "data_dependent"}
    result = _result(path, run.get("device") or device, error,
                     device_name=run.get("device_name"), torch=run.get("torch"),
                     entry=first["entry"] if first else "<module>", inputs=first["inputs"] if first else {},
                     lines=comp["lines"], mismatches=comp["mismatches"], observed=comp["observed"],
                     entries=entries, notes=list(notes) + [n for n in run.get("notes", [])],
                     stdout=run.get("stdout", ""), process=run.get("process", {}))
    if comp["summary"] is not None:
        result["summary"] = comp["summary"]
    return result


def to_diagnostics(result: dict, text: Optional[str] = None) -> list:
    """Contract diagnostics: SH501 (warning) per mismatch, SH502 (error) for a runtime error."""
    lines = text.splitlines() if text is not None else []
    out, seen = [], set()
    for m in result.get("mismatches", []):
        key = (m["line"], m["col"], m["name"], tuple(m["observed"] or ()), tuple(map(str, m["inferred"] or ())))
        if key in seen:
            continue
        seen.add(key)
        sym = m.get("inferred_symbolic")
        msg = (f"device run ({result.get('device')}): {m['name']} has shape {_fmt(m['observed'])} but the inferred "
               f"shape is {_fmt(m['inferred'])}" + (f" (= {_fmt(sym)})" if sym and sym != m["inferred"] else "")
               + f" [{m['context']}]")
        out.append({"line": m["line"], "col": m["col"], "end_line": m["line"], "end_col": m["col"] + len(m["name"]),
                    "severity": "warning", "code": "SH501", "message": msg, "related": []})
    err = result.get("error")
    if err and err.get("line"):
        ln = err["line"]
        body = lines[ln - 1] if 0 < ln <= len(lines) else ""
        col = len(body) - len(body.lstrip())
        out.append({"line": ln, "col": col, "end_line": ln, "end_col": max(len(body), col + 1), "severity": "error",
                    "code": "SH502", "message": f"device run ({result.get('device')}): {err['type']}: {err['message']}",
                    "related": []})
    return out


def _fmt(shape) -> str:
    return "?" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"
