"""The peer benchmarks: the ECOOP'24 programs (bench/peer/programs/) and the questions asked.

Constraints are Python expressions over `p.shape[i]` and `p.dim()`; ShapeHint gets them as
`--assume` strings (scoped to the function for Q1/Q2, unscoped for Q3: read in the model's
`forward`, whose calling contexts decide the helpers' branches), torch.fx gets them translated to Z3 over
the input's dimension variables (bench/peer/run_fx.py).

Questions
  Q1  is there a static migration? (ranks, one static shape, the dimensions that can only be Dyn)
  Q2  is there a static migration satisfying the constraints? (and one such shape)
  Q3  for each `# Q3:`-tagged branch: always-true / always-false / depends, under the constraints
"""
from __future__ import annotations

import json
import os
import time
import traceback

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")

XGLM_CONSTRAINTS = ["input_ids.dim() == 2", "input_ids.shape[0] > 0", "1 < input_ids.shape[1] < 2000"]

BENCHMARKS = [
    {"name": "BmmExample", "file": "bmm_example.py", "cls": "BmmExample", "params": ["x", "y"],
     "questions": [{"id": "Q1", "kind": "Q1"},
                   {"id": "Q2", "kind": "Q2", "constraints": ["1 <= x.shape[0] <= 8"]}]},
    {"name": "ConvExample", "file": "conv_example.py", "cls": "ConvExample", "params": ["x"],
     "questions": [{"id": "Q1", "kind": "Q1"}]},
    {"name": "ConvExample (fixed)", "file": "conv_fixed.py", "cls": "ConvFixed", "params": ["x"],
     "questions": [{"id": "Q1", "kind": "Q1"},
                   {"id": "Q2", "kind": "Q2", "constraints": [
                       "5 <= x.shape[0] <= 20", "5 <= x.shape[2] <= 20", "2 <= x.shape[3] <= 10"]}]},
    {"name": "AlexNet", "file": "alexnet.py", "cls": "AlexNet", "params": ["x"],
     "questions": [{"id": "Q1", "kind": "Q1"},
                   {"id": "Q2", "kind": "Q2", "constraints": [
                       "5 <= x.shape[0] <= 20", "200 <= x.shape[2] <= 300", "x.shape[2] == x.shape[3]"]},
                   {"id": "Q2-bad", "kind": "Q2", "constraints": ["x.shape[1] == 4"]}]},
    {"name": "ResNet-50", "file": "resnet50.py", "cls": "ResNet50", "params": ["x"], "slow": True,
     "questions": [{"id": "Q1", "kind": "Q1"},
                   {"id": "Q2", "kind": "Q2", "constraints": [
                       "5 <= x.shape[0] <= 20", "100 <= x.shape[2] <= 300", "x.shape[2] == x.shape[3]"]},
                   {"id": "Q2-bad", "kind": "Q2", "constraints": ["x.shape[1] == 4"]}]},
    {"name": "BERT-style", "file": "bert.py", "cls": "BertModel", "params": ["input_ids"],
     "fx_file": "bert_fx.py", "fx_cls": "BertModelFx",
     "questions": [{"id": "Q3", "kind": "Q3", "constraints": []}]},
    {"name": "XGLM-style", "file": "xglm.py", "cls": "XGLMModel", "params": ["input_ids"],
     "fx_file": "xglm_fx.py", "fx_cls": "XGLMModelFx",
     "questions": [{"id": "Q3-free", "kind": "Q3", "constraints": []},
                   {"id": "Q3", "kind": "Q3", "constraints": XGLM_CONSTRAINTS}]},
]


def by_name(name: str) -> dict:
    for b in BENCHMARKS:
        if b["name"] == name:
            return b
    raise KeyError(name)


def q3_tags(path: str) -> dict:
    """{tag: (if-line, first line of the true body)} of the `# Q3: tag` branches (1-based)."""
    import ast
    text = open(path).read()
    lines = text.split("\n")
    tags = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.If):
            line = lines[node.lineno - 1]
            if "# Q3:" in line:
                tag = line.split("# Q3:")[1].strip().split()[0]
                tags[tag] = (node.lineno, node.body[0].lineno)
    return dict(sorted(tags.items()))


def timed(fn, quick_s: float = 1.0, budget_s: float = 1.0, repeats: int = 100):
    """(answer, seconds, runs): an answer that takes under `quick_s` is timed as the minimum of
    up to `repeats` runs within about `budget_s` of repeating (timeit's rule: the minimum of many
    runs is the least disturbed by the rest of the machine; millisecond answers need more than
    three), the same rule on both sides; slower ones once."""
    t0 = time.perf_counter()
    ans = fn()
    best = time.perf_counter() - t0
    runs, spent = 1, 0.0
    while best < quick_s and runs < repeats and spent < budget_s:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best, spent, runs = min(best, dt), spent + dt, runs + 1
    return ans, best, runs


def answer_all(bench: dict, answer, only=None) -> None:
    """Times `answer(question)` for each of the benchmark's questions (or those in `only`) and
    prints one JSON line each; an exception is an "n/a" answer, never the end of the run."""
    for q in bench["questions"]:
        if only and q["id"] not in only:
            continue
        try:
            ans, seconds, runs = timed(lambda: answer(q))
        except Exception as exc:
            seconds, runs = None, 1
            ans = {"answer": "n/a", "error": f"{type(exc).__name__}: {exc}"[:300],
                   "where": traceback.format_exc().strip().splitlines()[-3][:200]}
        ans.update(question=q["id"], seconds=seconds, runs=runs)
        print(json.dumps(ans), flush=True)
