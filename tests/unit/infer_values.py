"""Reading a small program's `infer` JSON: the value recorded for a name at a line, and the shape
it has in one calling context (what the context tests compare with torch)."""


def value_at(values, function, line, name, required=False):
    """The value `name` recorded at `line` of `function` (None when there is none, unless
    `required`: then the test fails there, naming what it looked for)."""
    hit = [v for v in values if v["function"] == function and v["line"] == line and v["name"] == name]
    assert hit or not required, (function, line, name)
    return hit[0] if hit else None


def context_shape(value, label=None, prefix=None):
    """The shape `value` has in the context labelled `label` (or the first whose label starts
    with `prefix`); None when it has no such context."""
    for c in (value or {}).get("contexts") or []:
        if (c["context"] == label) if prefix is None else c["context"].startswith(prefix):
            return c["shape"]
    return None


def named_dims_agree(shape, observed, env) -> int:
    """How many dims of `shape` evaluate under `env` (names -> ints, `self.a.b` keys included);
    fails on one that evaluates to another size than torch's `observed` (`?` and unbound names
    are skipped)."""
    from shapehint.devicerun.compare import Unbound, safe_eval
    assert len(shape) == len(observed), (shape, observed)
    n = 0
    for d, o in zip(shape, observed):
        if d == "?":
            continue
        try:
            v = safe_eval(d, env) if isinstance(d, str) else d
        except Unbound:
            continue
        assert v == o, (shape, observed, d)
        n += 1
    return n
