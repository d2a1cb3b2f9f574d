"""Executes Q1/Q2 proposals with PyTorch in training mode (shared by the corpus test and by hand:
`python -m tests.signatures.migration_exec FILE...`)."""
import ast
import glob
import os
import signal
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def corpus() -> list:
    pats = ["tests/cases/*.py", "tests/questions/programs/*.py", "bench/peer/programs/*.py", "shared/examples/*.py"]
    return sorted(f for p in pats for f in glob.glob(os.path.join(ROOT, p)) if not os.path.basename(f).startswith("_"))


def definitions(text: str, path: str) -> dict:
    """The module's imports, classes, functions and assignments (not its other top-level runs);
    an assignment that raises is left out."""
    tree = ast.parse(text)
    ns = {"__name__": "migration_exec_program", "__file__": path, "__source__": text}
    keep = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.Assign, ast.AnnAssign)
    # its own folder first, as when it runs as a script: a sibling import (`import bert`) must not
    # depend on what earlier tests happened to put on sys.path
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        for st in tree.body:
            if isinstance(st, keep):
                try:
                    exec(compile(ast.Module([st], []), path, "exec"), ns)
                except Exception:  # noqa: BLE001 - a module-level run the proposals do not need
                    pass
    finally:
        sys.path.pop(0)
    return ns


def filled(text: str, holes: tuple) -> str:
    """The source with each shape hole (`__` at (line, col)) replaced by its value."""
    lines = text.split("\n")
    for line, col, value in sorted(holes, reverse=True):
        row = lines[line - 1]
        assert row[col:col + 2] == "__", (line, col, row)
        lines[line - 1] = row[:col] + str(value) + row[col + 2:]
    return "\n".join(lines)


def target(ns: dict, qualname: str, assumed: dict = None, instances: dict = None):
    """The callable for a qualname (`Net.forward` on `Net()` in training mode), or None when it
    cannot be built without arguments the file does not give. `assumed`: the migration's values
    of constructor parameters and of their attributes (`{"dim": 8, "config.hidden_size": 8}`);
    `instances`: the classes of the objects it assumed (`{"config": "GPTConfig"}`)."""
    parts = qualname.split(".")
    if "<locals>" in parts or len(parts) > 2:
        return None
    obj = ns.get(parts[0])
    if obj is None:
        return None
    if len(parts) == 1:
        return obj if callable(obj) else None
    if not isinstance(obj, type):
        return None
    try:
        built = objects(ns, assumed or {}, instances or {})
        args = dict(_ctor_args(ns, parts[0], set(built)), **built)
        inst = obj(**_with_assumed(obj, args, assumed or {}))
    except Exception:  # noqa: BLE001 - needs constructor arguments the file does not give: the
        return None  # proposal holds for its generic instance, whose sizes are symbols
    if hasattr(inst, "train"):
        inst.train()
    return getattr(inst, parts[1], None)


def objects(ns: dict, assumed: dict, instances: dict) -> dict:
    """{input: object} for the migration's `instances`: each class built with the `assumed`
    values of its attributes (those its constructor takes passed to it, the others set after)."""
    import inspect
    out = {}
    for head, cls_name in instances.items():
        cls = ns.get(cls_name)
        attrs = {n.split(".", 1)[1]: v for n, v in assumed.items() if n.startswith(head + ".")}
        try:
            takes = set(inspect.signature(cls).parameters)
        except (TypeError, ValueError):
            takes = set()
        built = cls(**{k: v for k, v in attrs.items() if k in takes})
        for k, v in attrs.items():
            if k not in takes:
                setattr(built, k, v)
        out[head] = built
    return out


def _ctor_args(ns: dict, cls: str, besides: set = frozenset()) -> dict:
    """Constructor arguments as `shapehint run` finds them (a config class of the file built with
    its defaults), except those `besides`; none when the constructor needs others."""
    from shapehint.devicerun.inputs import plan_entries
    try:
        plan = plan_entries(ns["__source__"], entry=cls)[0]
    except Exception:  # noqa: BLE001
        return {}
    return {k: eval(v["expr"], ns) for k, v in plan.ctor_args.items() if k not in besides}  # noqa: S307


def _with_assumed(cls, kwargs: dict, assumed: dict) -> dict:
    """The constructor's arguments with the migration's values: a parameter's own, or an
    attribute set on the object passed for it (a config built with its defaults)."""
    import inspect
    try:
        names = set(inspect.signature(cls.__init__).parameters)
    except (TypeError, ValueError):
        return kwargs
    out = dict(kwargs)
    for n, v in assumed.items():
        head, _, attr = n.partition(".")
        if not attr and head in names:
            out[head] = v
        elif attr and head in out:
            setattr(out[head], attr, v)
    return out


def run_proposal(ns: dict, mig: dict, dtypes: dict):
    """None when the proposal runs; else the error text; "skip" when it cannot be called."""
    import torch
    assumed, instances = mig.get("assumed") or {}, mig.get("instances") or {}
    fn = target(ns, mig["function"], assumed, instances)
    if fn is None:
        return "skip"
    import inspect
    try:
        own = set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        own = set()
    args = {n: v for n, v in assumed.items() if n in own}
    args.update({n: v for n, v in objects(ns, assumed, instances).items() if n in own})
    for p in mig["params"]:
        if dtypes.get(p["name"]) == "int64":
            args[p["name"]] = torch.zeros(p["shape"], dtype=torch.long)
        elif dtypes.get(p["name"]) == "bool":
            args[p["name"]] = torch.ones(p["shape"], dtype=torch.bool)
        else:
            args[p["name"]] = torch.randn(p["shape"])
    try:
        fn(**args)
    except TypeError as exc:
        if "missing" in str(exc) and "required" in str(exc):
            return "skip"  # other (non-tensor) arguments the proposal does not speak of
        return f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    return None


def check_file(path: str) -> tuple:
    """([(function, shapes, error)], ran, skipped) for every static proposal of the file."""
    from shapehint.analysis.api import analyze_session, analyze_source
    from shapehint.questions.migrate import answer_migration
    from shapehint.questions.signatures import signature
    with open(path, encoding="utf-8") as f:
        text = f.read()
    result = analyze_session(text, path)
    migs = [m for m in answer_migration(result) if m["status"] == "static"]
    if not migs:
        return [], 0, 0
    warnings.simplefilter("ignore")
    spaces: dict = {}  # the module's definitions, per filling of its holes
    bad, ran, skipped = [], 0, 0
    for m in migs:
        holes = tuple((h["line"], h["col"], h["value"]) for h in m.get("holes", []))
        if holes not in spaces:
            spaces[holes] = definitions(filled(text, holes), path)
        ns = spaces[holes]
        dtypes = {p.name: p.dtype for p in signature(result, m["function"]).params}
        err = run_proposal(ns, m, dtypes)
        if err == "skip":
            skipped += 1
            if os.environ.get("SHOW_SKIPPED"):
                print("skipped", os.path.relpath(path, ROOT), m["function"])
            continue
        ran += 1
        if err is not None:
            bad.append((m["function"], {p["name"]: p["shape"] for p in m["params"]}, err[:200]))
    return bad, ran, skipped


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "server"))
    total_ran = total_skip = 0
    for f in sys.argv[1:] or corpus():
        bad, ran, skipped = check_file(f)
        total_ran += ran
        total_skip += skipped
        for b in bad:
            print(os.path.relpath(f, ROOT), *b)
    print("ran", total_ran, "skipped", total_skip)
