"""Ground truth by execution: build one model, run it once on CPU, record every tensor assignment.

Run as `python execute.py REQUEST.json` in a subprocess (stdlib + torch only). It reuses devicerun's
runner (loaded from its path): its SourceMap (the same statements, targets and qualnames) and its
Recorder (frame filter and per-statement recording), extended by `tracer_class`. The request:
    {"runner": PATH of devicerun/runner.py, "paths": [package trees first, deps last],
     "module": "torchvision.models.resnet", "file": ABSPATH of that module's file,
     "build": "resnet18(num_classes=10)", "inputs": {NAME: {"shape": [...], "dtype": ..., "high": N}},
     "method": "forward", "out": PATH}
The model is imported as its package module (not exec'd as a script like the runner does) so its
relative imports resolve; `build` is evaluated in that module's namespace. Only frames whose code
comes from `file` are line-traced, while the model is built and while it runs.

Per traced call (an *invocation*) it records the bindings a shape's symbols may name: its
arguments (tensor shapes, ints, int tuples, a snapshot of the int attributes of objects such
as `self` and `config`, and the int class attributes of a class passed, `block.expansion`), the
constructor arguments `self` got from its `__init__` in this file, its caller (`QUALNAME:LINE`,
the runner's context) and its parent invocation, so a symbol of an enclosing call can be bound.
Identical invocations (same function, context, bindings and parent) are merged, so twelve
identical layers cost one record.
"""
import ast
import importlib
import importlib.util
import json
import math
import os
import sys
import time
import traceback

MAX_INVOCATIONS_PER_SITE = 32
MAX_SHAPES_PER_LINE = 8
MAX_ATTRS = 200
PART_DEPTH = 2  # a module's parts' parts: self.block.conv.out_channels (analysis/held_sizes.MAX_DEPTH)
MAX_PASSES = 16  # shapes per call and line kept in order (a loop's passes); past it, none
MAX_SEQUENCES = 8  # distinct orders per invocation and line; past it, none
_SUSPENDS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR


def keep_passes(rec: dict, seqs: dict) -> None:
    """Add one call's shapes in order (`seqs`: per target, a list, or None where a pass was
    lost) to its invocation record's `passes`: the distinct orders its calls gave, or None
    where one was lost or there were too many."""
    passes = rec.setdefault("passes", {})
    for key, seq in seqs.items():
        if key in passes and passes[key] is None:
            continue
        if seq is not None and all(d is None for d in seq):
            continue  # (never a tensor)
        if seq is None or None in seq:
            passes[key] = None
            continue
        got = passes.setdefault(key, [])
        if seq not in got:
            if len(got) >= MAX_SEQUENCES:
                passes[key] = None
            else:
                got.append(seq)


def load_runner(path):
    spec = importlib.util.spec_from_file_location("_shapehint_devicerun_runner", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def stub_torchvision_ops(torch, paths):
    """torchvision 0.29.1's compiled ops need torch 2.14; with torch 2.13 the extension does not load
    and `import torchvision` then fails in `_meta_registrations.py` ("operator torchvision::nms does
    not exist"), which registers fake kernels for ops the extension would have defined. Defining
    those op schemas first lets the import succeed; the classification models never call them (a
    call would fail loudly: there is no CPU kernel). Schemas are derived from the fake kernels'
    own parameter names, so this follows the wheel rather than a copied list."""
    meta = None
    for p in paths:
        cand = os.path.join(p, "torchvision", "_meta_registrations.py")
        if os.path.isfile(cand):
            meta = cand
            break
    if meta is None:
        return None
    tensors = {"input", "rois", "grad", "dets", "scores", "weight", "offset", "mask", "bias", "argmax",
               "channel_mapping"}
    floats = {"spatial_scale", "iou_threshold", "input_scale", "rois_scale"}
    bools = {"aligned", "use_mask"}
    lib = torch.library.Library("torchvision", "DEF")
    tree = ast.parse(open(meta, encoding="utf-8").read())
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        for dec in fn.decorator_list:
            if not (isinstance(dec, ast.Call) and dec.args and isinstance(dec.args[0], ast.Constant)):
                continue
            name = str(dec.args[0].value).split("::")[-1]
            params = ", ".join(("Tensor" if a.arg in tensors else "float" if a.arg in floats else
                                "bool" if a.arg in bools else "int") + " " + a.arg for a in fn.args.args)
            try:
                lib.define("%s(%s) -> Tensor" % (name, params))
            except RuntimeError:
                pass  # already defined (the extension did load after all)
    return lib  # keep a reference: the definitions live as long as the Library object


def _ints(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, (tuple, list)) and 0 < len(v) <= 16 and all(isinstance(e, int) and not isinstance(e, bool)
                                                                  for e in v):
        return list(v)
    return None


def _scalar(v):
    """An argument's or attribute's int (or ints), or a finite float as `{"float": v}`: a ratio
    (`config.mlp_ratio`) that score.py computes `int(r*dim)` with as Python does, never a dim."""
    i = _ints(v)
    if i is None and isinstance(v, float) and math.isfinite(v):
        return {"float": v}
    return i


def read_names(path) -> frozenset:
    """The public attribute names the file reads (`config.hidden_size`). An object's own attributes
    (`vars`) miss a name its class resolves another way (an alias `__getattribute__` maps to the
    attribute it stores, a property), which the code still reads as an int: such a name is read
    the way the code reads it (`getattr`), so a shape naming it is judged, not left unbound."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    return frozenset(n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                     and isinstance(n.ctx, ast.Load) and not n.attr.startswith("_"))


def _class_ints(cls) -> dict:
    """The int class attributes of a class passed as an argument (`block.expansion` of
    `ResNet(Bottleneck, ...)`), as the run reads them (`getattr`: inherited ones too); nothing else
    of a class is bound."""
    out = {}
    for k in [k for k in dir(cls) if not k.startswith("_")][:MAX_ATTRS]:
        try:
            v = getattr(cls, k)
        except Exception:
            continue
        if isinstance(v, int) and not isinstance(v, bool):
            out[k] = v
    return out


def _part_ints(module, depth: int) -> dict:
    """The int attributes of `module`'s parts, `depth` levels down (`self.conv.out_channels`: what
    analysis/held_sizes.py names a width by), as recorded attributes. The parts of a container
    read by position (`nn.Sequential`, `nn.ModuleList`: `self.head[2].in_features`) are recorded
    under `[i]` too, `i` the position `container[i]` reads (score.py evaluates `x[i]` so)."""
    out = {}  # (no parts before its `nn.Module.__init__` ran)
    parts = list((vars(module).get("_modules") or {}).items())
    for k, child in parts[:MAX_ATTRS]:
        if child is None or k.startswith("_"):
            continue
        got = {a: v for a, v in list(vars(child).items())[:MAX_ATTRS]
               if not a.startswith("_") and isinstance(v, int) and not isinstance(v, bool)}
        if depth > 1:
            got.update(_part_ints(child, depth - 1))
        if got:
            out[k] = {"attrs": got}
    if _by_position(module) and len(parts) <= MAX_ATTRS and all(c is not None for _, c in parts):
        for i, (k, _) in enumerate(parts):
            if k in out:
                out["[%d]" % i] = out[k]
    return out


def _by_position(module) -> bool:
    """Whether `module[i]` is its i-th part (`nn.Sequential` and `nn.ModuleList` index their
    parts in order; a `ModuleDict` is read by key)."""
    nn = getattr(sys.modules.get("torch"), "nn", None)
    return nn is not None and isinstance(module, (nn.Sequential, nn.ModuleList))


def tracer_class(runner):
    """The runner's Recorder (its frame filter, statement keys and per-statement recording),
    extended with what binds a shape's symbols: richer arguments, constructor arguments, the
    parent invocation, and invocations merged by all of that rather than by argument shapes."""

    class Tracer(runner.Recorder):
        def __init__(self, path, smap, torch):
            limits = dict(runner.DEFAULT_LIMITS, max_shapes=MAX_SHAPES_PER_LINE, max_records=10 ** 6)
            super().__init__(path, smap, torch, limits)
            self.invocations = []  # merged records, in first-seen order
            self.index = {}  # (qual, context, sig, parent) -> record
            self.per_site = {}
            self.ctor = {}  # id(self) -> constructor arguments seen in this file's __init__
            self.live = {}  # id(frame) -> its record, for the traced frames (comprehensions never)
            self._frame = None
            self.entry = "build"
            self.read_names = sorted(read_names(path))
            self.seqs = {}  # id(frame) -> {(line, col, name): shapes in order, None once a pass is lost}
            self._rec = None

        def describe(self, v, depth=None):
            if self._frame is None:  # a statement's target: tensors and ints only
                return super().describe(v)
            if depth is None:  # a constructor's arguments one level deeper: a configuration's
                depth = 2 if self._frame.f_code.co_name == "__init__" else 1  # parts' (config.text_config.x)
            T = self.torch
            if isinstance(v, T.Tensor):
                return {"shape": [int(d) for d in v.shape]}
            i = _scalar(v)
            if i is not None:
                return i
            if depth > 0 and isinstance(v, type):
                a = _class_ints(v)
                return {"attrs": a} if a else None
            if depth > 0 and v is not None and not isinstance(v, (str, bytes, float, bool, type, dict, list, tuple)):
                a = self.attrs(v, depth)
                if a:
                    return {"attrs": a}
            return None

        def attrs(self, obj, depth):
            try:
                items = list(vars(obj).items())
            except TypeError:
                return None
            out = {}
            for k, v in items[:MAX_ATTRS]:
                if not k.startswith("_"):
                    val = self.describe(v, depth - 1)
                    if val is not None:
                        out[k] = val
            if isinstance(obj, self.torch.nn.Module):
                out.update(_part_ints(obj, PART_DEPTH))
            own = {k for k, _ in items}
            # (not a module's: its `__getattr__` raises for each name it lacks, in every call)
            probe = [] if isinstance(obj, self.torch.nn.Module) else self.read_names
            for k in [k for k in probe if k not in own][:MAX_ATTRS]:
                try:  # (the trace function runs untraced: a property of the file adds no invocation)
                    v = getattr(obj, k)
                except Exception:  # noqa: BLE001 - a name other objects have, or a property that fails
                    continue
                val = _ints(v)  # (ints only: a module or tensor reached so is not an attribute it holds)
                if val is not None:
                    out[k] = val
            return out

        def start_frame(self, frame):
            self._frame, self._rec = frame, None
            try:
                inner = super().start_frame(frame)  # describes the arguments, then calls invocation()
            finally:
                self._frame = None
            rec = self._rec
            if inner is None or rec is None or frame.f_code.co_flags & _SUSPENDS:
                return inner  # (a generator's frame returns at each `yield`: no one call's passes)
            seqs = self.seqs[id(frame)] = {}
            tracer = self

            def trace(fr, event, arg):
                inner(fr, event, arg)
                if event == "return":  # (also where an exception leaves the frame)
                    tracer.seqs.pop(id(fr), None)
                    keep_passes(rec, seqs)
                return trace
            return trace

        def finish(self, frame, state, inv):
            """The runner's record of the statement just run, and, per call, the shapes each of
            its targets took in the order the statement ran (`passes`: a loop's k-th pass)."""
            super().finish(frame, state, inv)
            seqs = self.seqs.get(id(frame))
            key = state["stmt"]
            if seqs is None or key is None:
                return
            loc = frame.f_locals
            for name, line, col in self.smap.targets.get(key, ()):
                seq = seqs.setdefault((line, col, name), [])
                v = loc.get(name)
                if seq is None:
                    continue
                if state["raised"] or len(seq) >= MAX_PASSES:
                    seqs[(line, col, name)] = None  # a pass not recorded: the order no longer says which
                else:  # (a pass whose value is no tensor holds its place: keep_passes)
                    seq.append([int(d) for d in v.shape] if isinstance(v, self.torch.Tensor) else None)

        def invocation(self, qual, context, args, receiver=None):  # (told apart by ctor and parent)
            frame = self._frame
            me = frame.f_locals.get("self")
            deeper = self.describe(me, depth=2) if me is not None else None
            if deeper is not None:  # one level deeper for self: self.config.hidden_size
                args["self"] = deeper
            if frame.f_code.co_name == "__init__" and me is not None:
                known = self.ctor.setdefault(id(me), {})
                for k, v in args.items():
                    if k != "self":
                        known.setdefault(k, v)  # the most derived class's __init__ runs first
            ctor = self.ctor.get(id(me)) if me is not None and frame.f_code.co_name != "__init__" else None
            parent = self.parent(frame)
            sig = json.dumps([args, ctor], sort_keys=True)
            key = (qual, context, sig, parent["id"] if parent else None)
            rec = self.index.get(key)
            if rec is None and self.per_site.get((qual, context), 0) >= MAX_INVOCATIONS_PER_SITE:
                self.dropped += 1
            elif rec is None:
                self.per_site[(qual, context)] = self.per_site.get((qual, context), 0) + 1
                rec = {"id": len(self.invocations), "function": qual, "context": context, "phase": self.entry,
                       "parent": parent["id"] if parent else None, "env": args, "ctor": ctor, "count": 0,
                       "lines": {}}
                self.invocations.append(rec)
                self.index[key] = rec
            if rec is not None:
                rec["count"] += 1
                self.live[id(frame)] = rec
            self._rec = rec
            return rec

        def parent(self, frame):
            """The record of the nearest traced frame of this file up the stack (a frame id in
            `live` belongs to a frame still running, since every traced frame of the file that
            starts overwrites its id's entry, and untraced ones are skipped)."""
            f = frame.f_back
            while f is not None:
                if f.f_code.co_filename == self.path and not f.f_code.co_name.startswith("<"):
                    return self.live.get(id(f))
                f = f.f_back
            return None

        def to_json(self):
            out = []
            for rec in self.invocations:
                lines = [{"line": ln, "col": col, "name": nm, "observed": obs}
                         for (ln, col, nm), obs in sorted(rec["lines"].items())]
                passes = {"%d:%d:%s" % k: v for k, v in sorted((rec.get("passes") or {}).items())}
                out.append(dict(rec, lines=lines, passes=passes))
            return out

    return Tracer


def config_strings(model) -> dict:
    """The string attributes (properties included) of the built model's `config`: what a
    construction context that assumes one (analysis/literal_contexts.py) is checked against."""
    cfg = getattr(model, "config", None)
    if cfg is None:
        return {}
    out = {}
    props = {n for n in dir(type(cfg)) if isinstance(getattr(type(cfg), n, None), property)}
    for name in sorted(set(vars(cfg)) | props):
        try:
            v = getattr(cfg, name)
        except Exception:  # noqa: BLE001 - a property that raises holds nothing to check
            continue
        if isinstance(v, str):
            out[name] = v
    return out


def make_input(torch, spec):
    shape = [int(d) for d in spec["shape"]]
    dtype = getattr(torch, spec.get("dtype") or "float32")
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    if dtype == torch.bool:
        return torch.ones(shape, dtype=dtype)
    return torch.randint(int(spec.get("low", 0)), int(spec.get("high", 2)), shape, dtype=dtype)


def run(req):
    for p in req["paths"]:
        if p not in sys.path:
            sys.path.insert(0, p) if not p.endswith("deps") else sys.path.append(p)
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    keep = stub_torchvision_ops(torch, req["paths"])  # noqa: F841 - must outlive the imports
    runner = load_runner(req["runner"])
    path = os.path.abspath(req["file"])
    smap = runner.SourceMap(open(path, encoding="utf-8").read())
    t0 = time.time()
    mod = importlib.import_module(req["module"])
    if os.path.abspath(mod.__file__) != path:
        raise RuntimeError("module %s is %s, not %s" % (req["module"], mod.__file__, path))
    t_import = time.time() - t0
    tracer = tracer_class(runner)(path, smap, torch)
    result = {"error": None, "import_s": round(t_import, 3)}
    sys.settrace(tracer.global_trace)
    try:
        with torch.no_grad():
            model = eval(req["build"], dict(mod.__dict__))  # noqa: S307 - the committed model list
            model.eval()
            tracer.entry = "forward"
            inputs = {k: make_input(torch, s) for k, s in req["inputs"].items()}
            out = getattr(model, req.get("method") or "forward") if req.get("method") not in (None, "forward") else model
            out(**inputs)
    except BaseException as exc:  # noqa: BLE001 - a model that fails is a broken benchmark entry: say why
        result["error"] = {"type": type(exc).__name__, "message": str(exc)[:2000],
                           "traceback": traceback.format_exc()[-4000:]}
    finally:
        sys.settrace(None)
    result["config_strings"] = config_strings(locals().get("model"))
    result["run_s"] = round(time.time() - t0 - t_import, 3)
    result["invocations"] = tracer.to_json()
    result["dropped"] = tracer.dropped
    result["torch"] = torch.__version__
    return result


def main(argv):
    req = json.load(open(argv[1]))
    try:
        res = run(req)
    except BaseException as exc:  # noqa: BLE001 - set-up failure (import, stubs): report, do not crash
        res = {"error": {"type": type(exc).__name__, "message": str(exc)[:2000],
                         "traceback": traceback.format_exc()[-4000:]}, "invocations": []}
    tmp = req["out"] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, req["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
