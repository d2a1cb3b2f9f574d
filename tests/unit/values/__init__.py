"""The programs of the issue-28 tests (`tests/unit/test_values_*.py`), their answers, and the
programs themselves imported (to run them with torch)."""
import functools
import importlib.util
import os

from shapehint.analysis.api import analyze_source

HERE = os.path.dirname(os.path.abspath(__file__))


def path_of(name: str) -> str:
    return os.path.join(HERE, name + ".py")


@functools.lru_cache(maxsize=None)
def answer(name: str, src=None) -> dict:
    """`infer`'s answer on the program `name` (or on `src` in its place)."""
    if src is None:
        with open(path_of(name)) as f:
            src = f.read()
    return analyze_source(src, path_of(name)).infer_json()


def program(name: str):
    spec = importlib.util.spec_from_file_location(f"values_{name}", path_of(name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def in_context(value: dict, prefix: str):
    """The shape a record lists for the first calling context whose label starts with `prefix`."""
    shapes = [c["shape"] for c in value["contexts"] if c["context"].startswith(prefix)]
    assert shapes, value
    return shapes[0]


def value_at(name: str, function: str, line: int, var: str) -> dict:
    """The one record of `var` at `line` of `function` in the answer on program `name`."""
    got = [v for v in answer(name)["values"] if (v["function"], v["line"], v["name"]) == (function, line, var)]
    assert len(got) == 1, got
    return got[0]
