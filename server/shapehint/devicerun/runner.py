"""Device-run runner: execute a user's module and record the shapes every line assigns.

Invoked as `python runner.py REQUEST.json` (or with the request on stdin) in the interpreter the
user configured. It writes one JSON result to `request["result_path"]` (or stdout when absent).

Invariants:
- STANDALONE: imports only the standard library and torch (a test checks this), so it runs in an
  interpreter where shapehint is not installed. Its own folder is removed from sys.path first, so
  a user's `import api` cannot pick up our files; its parts beside it (`PARTS`: the source map and
  the line recorder in runner_trace.py) are loaded by path.
- Only frames whose code comes from the user's file are line-traced (sys.settrace; works on 3.10+);
  torch internals run untraced. A statement's targets are recorded when the next statement of the
  same frame starts (or the frame returns) and only if the statement did not raise.
- Observations are keyed by (function __qualname__, call context, invocation signature); the call
  context is "entry:NAME" for the entry call, else "CALLER_QUALNAME:LINE" of the nearest frame of
  the user's file on the stack. Everything is bounded by `limits` (records, shapes, captured output).
- User output never reaches our result channel: sys.stdout/stderr are replaced by bounded buffers;
  SystemExit and every exception (KeyboardInterrupt, our timeout) are caught; SIGTERM raises
  `RunnerTimeout` so a stopped run still writes its partial result with the line it was on.
"""
import ast
import faulthandler
import importlib.util
import json
import os
import re
import signal
import sys
import time
import traceback
import types

USER_MODULE = "__shapehint_user__"
DEFAULT_LIMITS = {"max_invocations": 8, "max_shapes": 4, "max_records": 20000, "max_output": 65536,
                  "max_contexts": 500}
# Errors on the meta device that mean "this needs data", not "this shape is wrong".
META_DATA_RE = re.compile(r"meta tensor|Meta tensor|Meta kernel|data-independent|data-dependent|"
                          r"register_meta|Cannot copy out of meta|fake impl|on meta", re.I)


class RunnerTimeout(BaseException):
    """Raised by the SIGTERM handler: the parent stopped us (time limit or cancel)."""


# ---- the parts kept beside this file ----------------------------------------------------------

def _sibling(name):
    """A part of the runner kept in a file beside it, loaded by path under a private name: this
    folder is taken off sys.path (a user's `import api` must not find our files), and nothing may
    come from the shapehint package (the runner runs where shapehint is not installed)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location("_shapehint_devicerun_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PARTS = ("runner_trace", "runner_bounds")  # every file the runner needs beside it (a copy of the runner copies them)
_trace = _sibling("runner_trace")
SourceMap, Recorder = _trace.SourceMap, _trace.Recorder
_bounds = _sibling("runner_bounds")
BoundedWriter, limit_address_space = _bounds.BoundedWriter, _bounds.limit_address_space


# ---- running ------------------------------------------------------------------------------

def user_error(exc, path, device):
    """{"line", "type", "message", "function"} at the innermost frame of the user's file."""
    line, func = None, None
    for fs in traceback.extract_tb(exc.__traceback__):
        if fs.filename == path:
            line, func = fs.lineno, fs.name
    msg = str(exc)
    if isinstance(exc, SystemExit):
        msg = "the module called sys.exit(%s)" % ("" if exc.code is None else repr(exc.code))
    etype = type(exc).__name__
    data = device == "meta" and META_DATA_RE.search(msg) is not None
    if isinstance(exc, MemoryError) or "can't allocate memory" in msg or "out of memory" in msg.lower():
        etype = "OutOfMemory" if etype in ("RuntimeError", "MemoryError") else etype
    return {"line": line, "function": func, "type": etype, "message": msg[:2000], "data_dependent": data}


def operands(exc, path, source):
    """The tensors the failing line of the user's file names (`x`, `self.weight`), as
    [{"expr", "shape", "dtype"}]: what a crash's message is about. Only names and attribute
    chains are looked up (no call is made), in the innermost frame of the user's file."""
    frame, lineno = None, None
    for fr, ln in traceback.walk_tb(exc.__traceback__):
        if fr.f_code.co_filename == path:
            frame, lineno = fr, ln
    lines = (source or "").splitlines()
    if frame is None or not 0 < lineno <= len(lines):
        return []
    text = lines[lineno - 1].strip()
    try:
        tree = ast.parse(text.rstrip(":") if text.endswith(":") else text)
    except SyntaxError:
        try:
            tree = ast.parse(text + "\n    pass")  # the head of a compound statement (`if`, `for`)
        except SyntaxError:
            return []
    out, seen = [], set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(getattr(node, "ctx", None), ast.Load):
            continue
        expr = ast.unparse(node)
        if expr in seen:
            continue
        seen.add(expr)
        value = _lookup(node, frame)
        shape = getattr(value, "shape", None)
        if shape is not None and type(value).__module__.startswith("torch") and hasattr(value, "dtype"):
            out.append({"expr": expr, "shape": [int(d) for d in shape], "dtype": str(value.dtype).replace("torch.", "")})
    return out[:16]


_MISSING = object()


def _lookup(node, frame):
    if isinstance(node, ast.Name):
        if node.id in frame.f_locals:
            return frame.f_locals[node.id]
        return frame.f_globals.get(node.id, _MISSING)
    base = _lookup(node.value, frame) if isinstance(node.value, (ast.Name, ast.Attribute)) else _MISSING
    if base is _MISSING or isinstance(getattr(type(base), node.attr, None), property):
        return _MISSING  # a property would run user code
    try:
        return getattr(base, node.attr, _MISSING)
    except Exception:  # noqa: BLE001 - __getattr__ of the user's object may raise anything
        return _MISSING


def pick_device(torch, want):
    if want == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if want == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda was asked for but torch.cuda.is_available() is False in this "
                           "interpreter (torch %s)" % torch.__version__)
    return want


def make_tensor(torch, spec, device, concrete, module):
    dtype = getattr(torch, {"long": "int64", "int": "int32", "float": "float32"}.get(spec.get("dtype"), spec.get("dtype") or "float32"))
    shape = [int(d) for d in spec["shape"]]
    if device == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=device).bool()
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, dtype=dtype, device=device)
    high = spec.get("high")
    if high is None and spec.get("high_from"):
        p, dim = spec["high_from"]
        if p in concrete and len(concrete[p]["shape"]) > dim:
            high = concrete[p]["shape"][dim]
    if high is None and spec.get("role") == "ids" and module is not None:
        try:  # the Embedding this input feeds, else the smallest one (valid ids for all)
            sizes = [module.get_submodule(spec["embedding"]).num_embeddings]
        except (KeyError, AttributeError):
            sizes = [m.num_embeddings for m in module.modules() if isinstance(m, torch.nn.Embedding)]
        high = min(sizes) if sizes else None
    high = max(1, int(high or 2))
    spec["high"] = high
    return torch.randint(int(spec.get("low", 0)), high, shape, dtype=dtype, device=device)


def resolve(mod, qualname):
    obj = mod
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def call_entry(torch, mod, entry, inputs, device, module_holder):
    """Instantiate (for a class) and call the entry once; returns nothing, raises what it raises."""
    obj = resolve(mod, entry["qualname"])
    with torch.device(device):
        if entry.get("kind") == "class":
            # Constructor arguments are Python expressions evaluated in the user's module.
            if entry.get("ctor_expr"):
                inst = eval(entry["ctor_expr"], mod.__dict__)  # noqa: S307
                if isinstance(obj, type) and not isinstance(inst, obj):
                    raise TypeError(f"{entry['ctor_expr']} built a {type(inst).__name__}, not a {entry['qualname']}")
            else:
                args = {k: eval(v["expr"], mod.__dict__) if isinstance(v, dict) else v  # noqa: S307
                        for k, v in entry.get("ctor_args", {}).items()}
                inst = obj(**args)
            module_holder.append(inst)
            if hasattr(inst, "eval"):
                inst.eval()
            kwargs = build_inputs(torch, inputs, device, inst)
            method = entry.get("method") or "forward"
            with torch.no_grad():  # inference only: less memory; shapes are the same
                # forward goes through __call__ so that hooks run as in real use.
                (inst if method == "forward" else getattr(inst, method))(**kwargs)
        else:
            obj(**build_inputs(torch, inputs, device, None))


def build_inputs(torch, inputs, device, module):
    kwargs, concrete = {}, {}
    for name, spec in inputs.items():
        if "value" in spec:
            kwargs[name] = spec["value"]
            continue
        kwargs[name] = make_tensor(torch, spec, device, concrete, module)
        concrete[name] = spec
    return kwargs


class DryRunTimeout(Exception):
    """A candidate's meta dry run took longer than its share of the dry-run budget."""


TRY_SECONDS, FIRST_TRY_SECONDS = 5.0, 30.0
BUDGET_SPENT = "dry-run time budget spent"  # not a failure of the inputs: never a reason to refuse


def _alarm(signum, frame):
    raise DryRunTimeout()


def warm_lazy_imports():
    """Import what torch imports lazily on a meta tensor's first failing or symbolic op (sympy and
    its symbolic shapes) before any try is bounded by SIGALRM: an alarm inside such an import
    leaves a half-initialised module behind, and the real run then fails in torch itself
    ("module 'sympy' has no attribute 'printing'"). (dynamo, imported by a few ops, costs seconds.)"""
    for name in ("sympy", "torch.fx.experimental.symbolic_shapes"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - not installed or not importable: the tries will say
            pass


def dry_run_pick(torch, mod, entry, deadline, always=False):
    """The first candidate inputs that run on meta (or stop only on data-dependent ops); with
    `always`, a single candidate is tried too (inputs we inferred are refused when none runs).

    Each try is bounded by SIGALRM so a module that loops forever cannot eat the whole run."""
    cands = entry.get("candidates") or [{}]
    if len(cands) == 1 and not always:
        return cands[0], None
    warm_lazy_imports()
    failures = []
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i, cand in enumerate(cands):
            left = deadline - time.time()
            if left <= 0:
                failures.append(BUDGET_SPENT)
                break
            # Generous per try, and more for the first: it pays torch's lazy imports (a failing
            # meta op imports torch._dynamo: seconds on a loaded machine), and a try interrupted
            # inside an import would both be taken for a slow pass and leave a half-initialised
            # module behind.
            signal.setitimer(signal.ITIMER_REAL, min(left, FIRST_TRY_SECONDS if i == 0 else TRY_SECONDS))
            try:
                call_entry(torch, mod, entry, json.loads(json.dumps(cand)), "meta", [])
                return cand, None
            except RunnerTimeout:
                raise
            except DryRunTimeout:
                return cand, None  # slow, not failing: keep it; more tries would only spend time
            except BaseException as exc:  # noqa: BLE001 - any failure means "try the next candidate"
                if META_DATA_RE.search(str(exc)):
                    return cand, None
                failures.append("%s: %s" % (type(exc).__name__, str(exc)[:200]))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return cands[0], failures


def enclosing_package(path):
    """(dotted package of the file's folder, the folder above the top package) or ("", None) when
    the folder is not a package (no `__init__.py`)."""
    parts = []
    folder = os.path.dirname(path)
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.append(os.path.basename(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if not parts or not all(p.isidentifier() for p in parts):
        return "", None
    return ".".join(reversed(parts)), folder


def load_module(path, source, package, name):
    """The user's module, executed (under the caller's trace). A module of a package (site-packages'
    torchvision/models/resnet.py, a repository's mypkg/model.py) imports its siblings relatively and
    is often imported by its own package too (registries then see it once): when the text is the
    file on disk it is imported under its dotted name, as Python would. Otherwise (an editor's
    unsaved text, a script) a fresh module runs the text, knowing its package."""
    if package:
        try:
            with open(path, encoding="utf-8") as f:
                on_disk = f.read() == source
        except (OSError, UnicodeDecodeError):
            on_disk = False
        if on_disk:
            import importlib
            return importlib.import_module(package + "." + os.path.splitext(os.path.basename(path))[0])
    mod = types.ModuleType(name)
    mod.__file__ = path
    if package:
        mod.__package__ = package
    sys.modules[name] = mod
    exec(compile(source, path, "exec"), mod.__dict__)
    return mod


def run_job(torch, job, device, limits, result, n):
    """Import one user file (traced) and call its entries; fills `result`. Raises RunnerTimeout."""
    path = os.path.abspath(job["path"])
    source = job.get("source")
    if source is None:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    torch.manual_seed(0)
    recorder = result["_recorder"] = Recorder(path, SourceMap(source), torch, limits)
    package, root = enclosing_package(path)
    if package:
        # its package's root first; its own folder last (a script's sibling imports still resolve,
        # but the folder's modules cannot shadow top-level ones, e.g. a package's `types.py`)
        sys.path.insert(0, root)
        sys.path.append(os.path.dirname(path))
    else:
        sys.path.insert(0, os.path.dirname(path))
    sys.settrace(recorder.global_trace)
    try:
        with torch.device(device):
            mod = load_module(path, source, package, USER_MODULE + ("" if n == 0 else str(n)))
    except BaseException as exc:  # noqa: BLE001 - the import itself failed: report and stop
        sys.settrace(None)
        if isinstance(exc, RunnerTimeout):
            raise
        result["error"] = dict(user_error(exc, path, device), phase="import")
        return
    sys.settrace(None)
    deadline = time.time() + float(job.get("dry_run_seconds", 20))  # shared by all entries' dry runs
    for entry in job.get("entries", []):
        info = {"entry": entry["qualname"], "kind": entry.get("kind"), "error": None,
                "ctor_args": entry.get("ctor_args", {}), "ctor_expr": entry.get("ctor_expr")}
        result["entries"].append(info)
        inputs, failures = dry_run_pick(torch, mod, entry, deadline, entry.get("refusal"))
        if failures and entry.get("refusal") and failures[-1] != BUDGET_SPENT:
            # inputs we inferred, and none runs: a refusal, not a crash of the user's code
            info["refused"] = "%s (the first try on meta failed: %s)" % (entry["refusal"], failures[0])
            continue
        if failures and entry.get("guessed"):
            # Nobody asked for this entry and no guess runs: an error here would be ours, not the user's.
            info["skipped"] = ("no candidate input shapes passed a meta dry run (%s); give its inputs with --entry "
                               "and --input" % failures[0])
            continue
        if failures:
            info["note"] = "no candidate input shapes passed a meta dry run (%s); using the first" % failures[0]
        inputs = json.loads(json.dumps(inputs))
        recorder.entry = entry["qualname"]
        holder = []
        sys.settrace(recorder.global_trace)
        try:
            call_entry(torch, mod, entry, inputs, device, holder)
        except BaseException as exc:  # noqa: BLE001 - user code may raise anything, even SystemExit
            sys.settrace(None)
            if isinstance(exc, RunnerTimeout):
                info["error"] = dict(user_error(exc, path, device), type="Timeout", message="stopped")
                raise
            info["error"] = user_error(exc, path, device)
            info["error"]["operands"] = operands(exc, path, source)
        finally:
            sys.settrace(None)
            info["inputs"] = {k: ({"value": v["value"]} if "value" in v else
                                  {"shape": v["shape"], "dtype": v.get("dtype") or "float32",
                                   **({"high": v["high"]} if v.get("high") else {})})
                                 | {k: v[k] for k in ("source", "reason") if k in v}
                              for k, v in inputs.items()}
            del holder[:]
            if device == "cuda":
                torch.cuda.empty_cache()
    result["ok"] = True


def main(argv):
    """One request, or a batch (`{"jobs": [request, ...]}`: one torch import for many files; the
    parent re-runs alone any job that has no result)."""
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
    req = json.load(open(argv[1]) if len(argv) > 1 else sys.stdin)
    limits = dict(DEFAULT_LIMITS, **req.get("limits", {}))
    jobs = req.get("jobs") or [req]
    results = []
    out_path = req.get("result_path")
    real_stdout = sys.stdout
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    fault = open(req["fault_path"], "w") if req.get("fault_path") else sys.__stderr__
    faulthandler.enable(file=fault)

    def on_term(signum, frame):
        raise RunnerTimeout()
    signal.signal(signal.SIGTERM, on_term)
    common = {}
    try:
        import torch
        if req.get("address_space_mb"):
            limit_address_space(int(req["address_space_mb"]))
        device = pick_device(torch, req.get("device", "auto"))
        if req.get("ready_path"):  # the parent's time limit counts from here: startup is not the user's
            open(req["ready_path"], "w").close()
        common = {"torch": torch.__version__, "python": sys.version.split()[0], "device": device,
                  "device_name": torch.cuda.get_device_name(0) if device == "cuda" else device}
        for n, job in enumerate(jobs):
            result = dict(common, ok=False, entries=[], calls=[], error=None, notes=[], path=job["path"])
            results.append(result)
            sys.stdout = sys.stderr = BoundedWriter(limits["max_output"])
            run_job(torch, job, device, limits, result, n)
            collect(result)
    except RunnerTimeout as exc:
        sys.settrace(None)
        if results:
            results[-1]["error"] = dict(user_error(exc, os.path.abspath(jobs[len(results) - 1]["path"]), None),
                                        type="Timeout", message="stopped by the parent (time limit or cancel)")
    except BaseException as exc:  # noqa: BLE001 - runner-level failure (no torch, bad device, ...)
        sys.settrace(None)
        name = "TorchMissing" if isinstance(exc, ImportError) and "torch" in str(exc) else type(exc).__name__
        err = {"line": None, "type": name, "message": str(exc)[:2000], "phase": "setup"}
        if results and "_recorder" in results[-1]:  # inside a job: the job's own failure
            results[-1]["error"] = err
        else:
            results = [dict(common, ok=False, entries=[], calls=[], error=err, notes=[])]
    if results:
        collect(results[-1])
    out = results[0] if "jobs" not in req else {"ok": True, "jobs": results}
    return write(out, out_path, real_stdout)


def collect(result):
    """Move the recorder's observations and the captured output into the result (idempotent)."""
    out = sys.stdout
    if isinstance(out, BoundedWriter) and "stdout" not in result:
        result["stdout"] = out.text()
        result["stdout_dropped"] = out.dropped
    recorder = result.pop("_recorder", None)
    if recorder is not None:
        result["calls"] = recorder.to_json()
        result["dropped_records"] = recorder.dropped


def write(data, out_path, real_stdout):
    data = json.dumps(data)
    if out_path:
        tmp = out_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(data)
        os.replace(tmp, out_path)  # atomic: the parent never reads half a result
    else:
        real_stdout.write(data)
        real_stdout.flush()
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush() if not isinstance(sys.stdout, BoundedWriter) else None
    # os._exit: user atexit handlers and lingering non-daemon threads must not keep us alive.
    os._exit(code)
