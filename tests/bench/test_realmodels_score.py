"""The real-model benchmark's referee (bench/realmodels/score.py), on synthetic runs: binding,
verdicts, contexts, and the self-test (a perfect answer is all right; off by one is all wrong)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "bench", "realmodels"))
import annotate  # noqa: E402
import report  # noqa: E402
import score  # noqa: E402


def inv(id, function, context, env, lines, ctor=None, parent=None):
    return {"id": id, "function": function, "context": context, "env": env, "ctor": ctor, "parent": parent,
            "lines": [{"line": ln, "col": 8, "name": nm, "observed": obs} for ln, nm, obs in lines]}


def S(*dims):
    return {"shape": list(dims)}


# A block called twice (stride 1 and 2) from Net.forward (lines 11 and 12), itself called with x of [2, 3, 32, 32];
# the attention function binds B, T from `B, T, C = h.shape` and reads config.hidden_size.
RUN = [
    inv(0, "Net.forward", "entry:forward", {"x": S(2, 3, 32, 32)}, [(10, "h", [S(2, 8, 32, 32)]),
                                                                   (11, "out", [S(2, 16, 16, 16)])]),
    inv(1, "Block.forward", "Net.forward:11", {"x": S(2, 8, 32, 32)}, [(20, "y", [S(2, 8, 32, 32)])],
        ctor={"planes": 8, "stride": 1}, parent=0),
    inv(2, "Block.forward", "Net.forward:12", {"x": S(2, 8, 32, 32)}, [(20, "y", [S(2, 16, 16, 16)])],
        ctor={"planes": 16, "stride": 2}, parent=0),
    inv(3, "Attn.forward", "entry:forward", {"h": S(2, 5, 32), "self": {"attrs": {"config": {"attrs": {"hidden_size": 32}}}}},
        [(30, "B", [{"int": 2}]), (30, "T", [{"int": 5}]), (31, "q", [S(2, 5, 32)]), (32, "z", [S(2, 5, 4, 8)])]),
]


def answer(values, symbols=None):
    out = {"values": [dict({"col": 8}, line=ln, name=nm, shape=sh, **({"contexts": cx} if cx else {}))
                      for ln, nm, sh, cx in values]}
    if symbols:
        out["symbols"] = symbols
    return out


def verdicts(ans, run=RUN):
    return {k: v["verdict"] for k, v in score.score(run, ans).items()}


def test_symbolic_answers_bind_from_arguments_constructor_locals_and_config():
    ans = answer([(10, "h", ["x.shape[0]", 8, "x.size(2)", "x.shape[3]"], None),
                  (11, "out", ["x.shape[0]", 16, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"], None),
                  (20, "y", ["x.shape[0]", "planes", "(x.shape[2] - 1)//stride + 1", "(x.shape[3] - 1)//stride + 1"], None),
                  (31, "q", ["B", "T", "self.config.hidden_size"], None),
                  (32, "z", ["*batch", 4, "config.hidden_size // 4"], None)])
    got = verdicts(ans)
    assert got == {"10:h": "right", "11:out": "right", "20:y": "right", "31:q": "right", "32:z": "partial"}


def test_unknown_or_unbound_dims_are_partial_and_a_false_evaluable_dim_is_wrong():
    ans = answer([(10, "h", ["x.shape[0]", "?", 32, 32], None),       # ? left
                  (11, "out", ["N", 16, 16, 16], None),                # N bound nowhere
                  (20, "y", ["x.shape[0]", "planes", "x.shape[2]", "x.shape[3]"], None),  # wrong for stride 2
                  (31, "q", ["B", "T"], None),                         # rank differs
                  (32, "z", ["*b", 1, 2, 5, 4, 8], None)])             # variadic claims too many axes
    assert verdicts(ans) == {"10:h": "partial", "11:out": "partial", "20:y": "wrong", "31:q": "wrong", "32:z": "wrong"}


def test_missing_when_no_value_or_no_shape():
    assert verdicts(answer([(10, "h", None, None)])) == {"10:h": "missing", "11:out": "missing", "20:y": "missing",
                                                         "31:q": "missing", "32:z": "missing"}


def test_a_context_counts_for_the_call_it_names_in_the_callers_names():
    ctx = [{"context": "called from Net.forward (line 11)", "shape": ["x.shape[0]", 8, 32, 32]},
           {"context": "Net.forward:12", "shape": [2, 16, "x.shape[2] // 2", 16]}]
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], ctx)]))["20:y"] == "right"
    bad = [{"context": "Net.forward:12", "shape": [2, 8, 32, 32]}]  # the stride-1 call's shape for the other
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], bad)]))["20:y"] == "wrong"
    elsewhere = [{"context": "Other.forward:99", "shape": [2, 8, 32, 32]}]  # names no observed caller: ignored
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], elsewhere)]))["20:y"] == "partial"


# Two instances of one block reached from one line of their caller (Stage.forward:40), each stage
# called from its own line of Net.forward; the stage's input is x's half.
NESTED = [
    inv(0, "Net.forward", "entry:forward", {"x": S(2, 3, 32, 32)}, []),
    inv(1, "Stage.forward", "Net.forward:11", {"x": S(2, 3, 16, 16)}, [], ctor={"planes": 8}, parent=0),
    inv(2, "Block.forward", "Stage.forward:40", {"x": S(2, 3, 16, 16)}, [(20, "y", [S(2, 8, 16, 16)])],
        ctor={"planes": 8}, parent=1),
    inv(3, "Stage.forward", "Net.forward:12", {"x": S(2, 3, 16, 16)}, [], ctor={"planes": 16}, parent=0),
    inv(4, "Block.forward", "Stage.forward:40", {"x": S(2, 3, 16, 16)}, [(20, "y", [S(2, 16, 16, 16)])],
        ctor={"planes": 16}, parent=3),
]


def test_via_tells_instances_reached_from_one_line_apart_and_binds_the_names_where_it_starts():
    """(issue 24, tv_googlenet) Each context's `via` names the calls from Net.forward, whose `x`
    (32 wide, not the block's own 16-wide `x`) its dims are written in."""
    ctx = [{"context": "Stage.forward:40", "via": ["Net.forward:11", "Stage.forward:40"],
            "shape": ["x.shape[0]", 8, "x.shape[2] // 2", "x.shape[3] // 2"]},
           {"context": "Stage.forward:40", "via": ["Net.forward:12", "Stage.forward:40"],
            "shape": ["x.shape[0]", 16, "x.shape[2] // 2", "x.shape[3] // 2"]}]
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], ctx)], ), NESTED)["20:y"] == "right"
    swapped = [dict(c, via=o["via"]) for c, o in zip(ctx, ctx[::-1])]
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], swapped)]), NESTED)["20:y"] == "wrong"
    # the same dims bound in the block's own `x` (16 wide) would be wrong: the names are Net.forward's
    own = [dict(c, shape=["x.shape[0]", c["shape"][1], "x.shape[2]", "x.shape[3]"]) for c in ctx]
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], own)]), NESTED)["20:y"] == "wrong"


def test_contexts_that_name_the_same_calls_are_judged_by_their_join_never_by_one_of_them():
    """Blocks of one Sequential are called from one line: which context is which call cannot be
    told, so a context right for one call does not make the line right for the other."""
    ctx = [{"context": "Stage.forward:40", "shape": [2, 8, 16, 16]},
           {"context": "Stage.forward:40", "shape": [2, 16, 16, 16]}]
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], ctx)]), NESTED)["20:y"] == "partial"
    wrong = [dict(c, shape=[2, c["shape"][1], 8, 16]) for c in ctx]  # what both claim must hold
    assert verdicts(answer([(20, "y", ["x.shape[0]", "?", "?", "?"], wrong)]), NESTED)["20:y"] == "wrong"


def test_symbols_map_binds_names_of_the_function_and_of_an_enclosing_call():
    symbols = {"Bn": {"param": "x", "axis": 0, "function": "Net.forward"},
               "C": {"param": "x", "axis": 1, "function": "Block.forward"},
               "D": {"attr": "config.hidden_size", "function": "Attn.forward"}}
    ans = answer([(20, "y", ["Bn", "2*C", "?", "?"], None), (31, "q", ["B", "T", "D"], None)], symbols)
    got = verdicts(ans)
    assert got["31:q"] == "right"
    assert got["20:y"] == "wrong"  # 2*C is 16 for the stride-1 call, which observed 8
    ans = answer([(20, "y", ["Bn", "C", "?", "?"], None)], {"Bn": symbols["Bn"]})
    assert verdicts(ans)["20:y"] == "partial"  # C is not in the map: the map wins, C stays unbound


def perfect(run):
    """An answer built from the observations: concrete where a line saw one shape, per caller context
    otherwise (ShapeHint's contract allows both)."""
    by = {}
    for i in run:
        for ln in i["lines"]:
            for o in ln["observed"]:
                if "shape" in o:
                    by.setdefault((ln["line"], ln["name"]), {}).setdefault(i["context"], []).append(o["shape"])
    values = []
    for (line, name), ctxs in by.items():
        shapes = [s for ss in ctxs.values() for s in ss]
        if all(s == shapes[0] for s in shapes):
            values.append((line, name, shapes[0], None))
        else:
            values.append((line, name, None, [{"context": c, "shape": s} for c, ss in ctxs.items() for s in ss]))
    return answer(values)


def off_by_one(ans):
    for v in ans["values"]:
        for item in [v] + v.get("contexts", []):
            if item.get("shape"):
                item["shape"] = [d + 1 if isinstance(d, int) else d for d in item["shape"]]
    return ans


def test_self_test_perfect_answer_is_all_right_and_off_by_one_is_all_wrong():
    c = score.counts(score.score(RUN, perfect(RUN)))
    assert c["lines"] == 5 and c["right"] == 5 and c["wrong"] == 0
    c = score.counts(score.score(RUN, off_by_one(perfect(RUN))))
    assert c["wrong"] == 5 and c["right"] == 0


def test_evaluator_is_restricted_to_shape_arithmetic():
    look = lambda n: {"H": 9, "s": 2}[n]  # noqa: E731
    assert score.evaluate("(H - 1)//s + 1", look) == 5
    assert score.evaluate("max(H, 2*s) % 4", look) == 1
    for bad in ("__import__('os')", "H / s", "H if s else 1", "(H - 1)//0", "2**1000"):
        with pytest.raises(score.Unbound):
            score.evaluate(bad, look)


def test_a_product_of_axes_evaluates_as_torch_sizes_numel():
    """`x.shape[:-1].numel()` (ShapeHint's name for a parameter's flattened leading axes) is
    torch.Size's numel of the observed axes, for every rank; a false one is wrong."""
    x = {"shape": [2, 3, 4]}
    look = lambda n: score.wrap({"x": x, "y": {"shape": [5]}}[n])  # noqa: E731
    assert score.evaluate("x.shape[:-1].numel()", look) == 6
    assert score.evaluate("x.shape[1:].numel()", look) == 12
    assert score.evaluate("x.numel()", look) == 24
    assert score.evaluate("y.shape[:-1].numel()", look) == 1  # (an empty Size's numel)
    assert score.evaluate("max(x.shape[0], x.shape[:-1].numel())", look) == 6
    for bad in ("x.shape[::2].numel()", "x.shape[:-1]", "x.shape[:-1].numel(0)"):
        with pytest.raises(score.Unbound):
            score.evaluate(bad, look)
    assert score.judge(["x.shape[:-1].numel()", 4], [6, 4], look) == "right"
    assert score.judge(["x.shape[1:].numel()", 4], [6, 4], look) == "wrong"


def test_annotation_line_goes_after_the_docstring_and_maps_back():
    src = ('class M:\n    def forward(self, x, ids=None):\n        """Doc."""\n        y = x\n        return y\n')
    at, text = annotate.assertion_line(src, "M", {"x": {"shape": [2, 3]}, "ids": {"shape": [4]}})
    assert (at, text) == (4, "        assert x.shape == (2, 3); assert ids.shape == (4,)")
    new = annotate.insert(src, at, text)
    compile(new, "m.py", "exec")
    m = annotate.line_map(at)
    assert [m(n) for n in (3, 4, 5, 6)] == [3, None, 4, 5]
    assert annotate.assertion_line(src, "Other", {"x": {"shape": [1]}})[0] is None


def test_an_inherited_forward_gets_one_line_that_asserts_and_hands_on():
    # `Child` inherits `forward` (from an imported class, in the real models): the one inserted
    # line defines a forward that asserts the inputs and calls the inherited one by keyword
    torch = pytest.importorskip("torch")
    src = ("import torch\n\n\nclass Base(torch.nn.Module):\n    def forward(self, x, mask=None):\n"
           "        return x.sum(-1)\n\n\nclass Child(Base):\n    \"\"\"Doc.\"\"\"\n\n    def extra(self):\n"
           "        return 1\n\n\nZ = 1\n")
    at, text = annotate.assertion_line(src, "Child", {"x": {"shape": [2, 3]}})
    assert at == 14 and text.startswith("    def forward(self, *args, x, **kwargs): assert x.shape == (2, 3)")
    ns = {}
    exec(compile(annotate.insert(src, at, text), "m.py", "exec"), ns)
    assert list(ns["Child"]()(x=torch.zeros(2, 3)).shape) == [2]
    with pytest.raises(AssertionError):
        ns["Child"]()(x=torch.zeros(2, 4))
    m = annotate.line_map(at)
    assert [m(n) for n in (13, 14, 15)] == [13, None, 14]


def test_symlink_tree_changes_only_the_model_file(tmp_path):
    src = tmp_path / "src"
    (src / "pkg" / "models").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "util.py").write_text("A = 1\n")
    (src / "pkg" / "models" / "net.py").write_text("old\n")
    (src / "pkg" / "models" / "other.py").write_text("o\n")
    path = annotate.symlink_tree(str(src), "pkg/models/net.py", str(tmp_path / "dst"), "new\n")
    assert open(path).read() == "new\n" and (src / "pkg" / "models" / "net.py").read_text() == "old\n"
    assert (tmp_path / "dst" / "pkg" / "util.py").read_text() == "A = 1\n"
    assert (tmp_path / "dst" / "pkg" / "models" / "other.py").is_symlink()


def _result(verdict_of_20y, commit):
    lines = {"10:h": {"verdict": "right", "function": "Net.forward", "observations": 1, "example": None},
             "20:y": {"verdict": verdict_of_20y, "function": "Block.forward", "observations": 2, "example": None}}
    mode = {"counts": score.counts(lines), "false_errors": [], "crash": None, "infer_s": 1.0, "lines": lines}
    return {"commit": commit, "modes": ["raw"], "models": {"m": {"package": "p", "file": "p/models/m.py",
                                                                 "execution": {"error": None}, "modes": {"raw": mode}}}}


def test_compare_lists_each_changed_verdict_and_readme_markers(tmp_path):
    md = report.compare_md(_result("partial", "aaa"), _result("right", "bbb"))
    assert "| m | raw | 20:y | partial | right |" in md and "partial→right: 1" in md and "10:h" not in md.split("|---|")[-1]
    assert "raw: right +1, partial -1, wrong +0" in md
    bigger = _result("partial", "aaa")
    bigger["models"]["n"] = bigger["models"]["m"]  # a model the new run did not run: not in the deltas
    assert "raw: right +1, partial -1, wrong +0" in report.compare_md(bigger, _result("right", "bbb"))
    readme = tmp_path / "README.md"
    readme.write_text("top\n<!-- realmodels:start -->\nold\n<!-- realmodels:end -->\nbottom\n")
    assert report.update_readme(report.readme_md(_result("right", "bbb")), str(readme))
    text = readme.read_text()
    assert "old" not in text and "| **all** | raw | 1 | 2 | 2 (100.0 %)" in text and text.endswith("bottom\n")
    (tmp_path / "R2.md").write_text("no markers\n")
    assert not report.update_readme("x", str(tmp_path / "R2.md"))


def test_a_construction_context_of_the_factory_the_build_calls_is_credited():
    # Net.forward's line 10 has no shape of its own (the class's structure comes from a factory
    # argument); the `small:40` construction context has it. It counts only when the benchmark
    # builds the model through `small` (or through a function that calls it).
    ans = answer([(10, "h", None, [{"context": "small:40", "shape": ["x.shape[0]", 8, 32, 32]}])])
    assert verdicts(ans)["10:h"] == "missing"
    got = {k: v["verdict"] for k, v in score.score(RUN, ans, built_by=frozenset({"small"})).items()}
    assert got["10:h"] == "right"
    bad = answer([(10, "h", None, [{"context": "small:40", "shape": ["x.shape[0]", 9, 32, 32]}])])
    assert {k: v["verdict"] for k, v in score.score(RUN, bad, built_by=frozenset({"small"})).items()}["10:h"] == "wrong"


def test_builders_follow_the_module_functions_the_build_expression_calls():
    src = ("def _make(n, num_classes=1000):\n    return Net(n)\n\n\ndef small(**kw):\n    return _make(2, **kw)\n\n\n"
           "def big():\n    return _make(8)\n\n\nclass Net:\n    pass\n")
    assert score.builders("small(num_classes=10)", src) == {"small", "_make"}
    assert score.builders("big()", src) == {"big", "_make"}
    # a public factory's `**kwargs` context holds int sizes only (analysis/sized_kwargs.py): a
    # keyword that names no size parameter of the file may be anything, so that context is not it
    assert score.builders("small(flavour=10)", src) == frozenset()
    assert score.builders("Net(3)", src) == frozenset()
    assert score.builders("small(", src) == frozenset()


def test_contexts_whose_variadic_segments_differ_join_around_one_segment_not_to_nothing():
    """Two true contexts of one line (`[*?]` and `[*?, hidden]`) join to `[*?]`: partial, where
    the join once gave no shape at all (missing); what they both write at either end is kept."""
    assert score.join_dims([["*?"], ["*?", "h"]]) == ["*?"]
    assert score.join_dims([["b", "*x", "h"], ["b", "t", "h"]]) == ["b", "*?", "h"]
    assert score.join_dims([["a", "b"], ["*?", "b"]]) == ["*?", "b"]
    assert score.join_dims([["a", "b"], ["a", "b", "c"]]) is None  # ranks apart, no segment
    assert score.join_dims([["a", "?"], ["a", "c"]]) == ["a", "?"]


def test_float_operands_compute_as_python_does_and_only_an_int_result_is_a_dim():
    """A ratio bound to a float (`config.mlp_ratio`, recorded as `{"float": r}`) is an operand:
    `int(r*d)` truncates the product as Python does; `//` and `%` on floats follow Python. A float
    result, even an integral one, is no dim: unbound, never rounded; a false int is wrong."""
    env = {"r": {"float": 2.5}, "q": {"float": 4.0}, "d": 5, "n": {"float": -7.5}}
    look = lambda n: score.wrap(env[n])  # noqa: E731
    assert score.evaluate("int(r*d)", look) == int(2.5 * 5) == 12
    assert score.evaluate("int(q*d)", look) == 20
    assert score.evaluate("int(n // 2)", look) == int(-7.5 // 2) == -4  # floor, then truncation
    assert score.evaluate("int(n % 2)", look) == int(-7.5 % 2) == 0
    assert score.evaluate("int(d / 2)", look) == 2 and score.evaluate("round(r*d)", look) == round(12.5) == 12
    for bad in ("q*d", "r*d", "d / 1", "n // 2", "2.0", "int(r*d) * 1.0", "int(d / 0)", "int(r ** 2000.0)"):
        with pytest.raises(score.Unbound):
            score.evaluate(bad, look)
    assert score.judge(["int(r*d)", "int(q*d)"], [12, 20], look) == "right"
    assert score.judge(["int(r*d)", "q*d"], [12, 20], look) == "partial"  # (a float: never rounded to 20)
    assert score.judge(["int(r*d)", "int(q*d)"], [13, 20], look) == "wrong"
    assert score.judge(["r*d + 0.5", 20], [13, 20], look) == "partial"


def test_a_float_attribute_of_the_run_binds_a_ratio_by_attribute_and_by_symbol():
    run = [inv(0, "Mlp.forward", "entry:forward",
               {"x": S(2, 7, 6), "self": {"attrs": {"config": {"attrs": {"mlp_ratio": {"float": 4.0}}}, "dim": 6}}},
               [(40, "h", [S(2, 7, 24)])], ctor={"ratio": {"float": 1.5}})]
    ans = answer([(40, "h", ["x.shape[0]", "x.shape[1]", "int(self.config.mlp_ratio*self.dim)"], None)])
    assert verdicts(ans, run) == {"40:h": "right"}
    ans = answer([(40, "h", ["x.shape[0]", "x.shape[1]", "int(ratio*self.dim)"], None)])
    assert verdicts(ans, run) == {"40:h": "wrong"}  # 1.5*6 is 9, not 24
    ans = answer([(40, "h", ["x.shape[0]", "x.shape[1]", "int(R*x.shape[2])"], None)],
                 {"R": {"attr": "self.config.mlp_ratio", "function": "Mlp.forward"}})
    assert verdicts(ans, run) == {"40:h": "right"}
    ans = answer([(40, "h", ["x.shape[0]", "x.shape[1]", "self.config.mlp_ratio*self.dim"], None)])
    assert verdicts(ans, run) == {"40:h": "partial"}  # 24.0: a float, no dim
