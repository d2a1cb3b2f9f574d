"""What the mechanism tests of encoder transformers share: a small program's `infer` JSON, and
the program run with torch (the referee of each shape)."""
import json
import os
import subprocess
import sys

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")


def infer(tmp_path, program: str) -> dict:
    f = tmp_path / "m.py"
    f.write_text(program)
    return infer_file(f)


def infer_file(path) -> dict:
    """`infer`'s JSON for a file already written (a module of a small package)."""
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "infer", str(path), "--format", "json"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SERVER), timeout=300)
    return json.loads(out.stdout)


def run(program: str) -> dict:
    scope: dict = {}
    exec(compile(program, "m.py", "exec"), scope)
    return scope


def write_package(root, files: dict):
    """`files` (relative path: text) written under `root`; the path of the last one."""
    for rel, text in files.items():
        os.makedirs(os.path.dirname(root / rel), exist_ok=True)
        (root / rel).write_text(text)
    return root / list(files)[-1]


def run_package(root, module: str, *args):
    """`run(*args)` of `module` (`pkg.m`) imported fresh from `root`, with torch."""
    import importlib
    pkg = module.split(".")[0]

    def forget():  # (before, a package of that name another test ran; after, for the next test)
        for name in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
            del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        forget()
        return importlib.import_module(module).run(*args)
    finally:
        sys.path.remove(str(root))
        forget()


def built_on_meta(root, program: str, build: str, modules=("settings",)):
    """`build` (an expression) evaluated where `program` ran as `model.py` of `root` (importing
    the modules written beside it, forgotten after), the model on the meta device."""
    sys.path.insert(0, str(root))
    try:
        scope: dict = {}
        exec(compile(program, str(root / "model.py"), "exec"), scope)
        return eval(build, scope).to("meta")
    finally:
        sys.path.remove(str(root))
        for name in modules:
            sys.modules.pop(name, None)


def model_on_ids(program: str, config: str, batch: int = 2, length: int = 5):
    """(the output's shape, the configuration) of `Model(<config>)` of `program` run on a
    `[batch, length]` tensor of ids on the meta device."""
    import torch
    scope: dict = {}
    exec(compile(program, "model.py", "exec"), scope)
    cfg = eval(config, scope)
    net = scope["Model"](cfg).to("meta")
    return tuple(net(torch.zeros(batch, length, dtype=torch.long, device="meta")).shape), cfg
