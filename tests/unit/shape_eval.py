"""Helpers the tests of construction mechanisms share: a small program run with Python (and
torch), and an inferred shape evaluated in the names its dims are written in."""


def run_program(src: str) -> dict:
    """The globals of `src`, run as module `m.py`."""
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    return ns


def evaluated(shape: list, env: dict) -> list:
    """Each dim of an inferred shape evaluated in `env` (a dim left `?` is no claim: None)."""
    return [None if d == "?" else d if isinstance(d, int) else eval(d, {}, env) for d in shape]


def inferred(src: str, function: str) -> dict:
    """{name: inferred shape} of the values `function` of `src` (analysed as `m.py`) assigns."""
    from shapehint.analysis.api import analyze_source
    r = analyze_source(src, "m.py")
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == function}
