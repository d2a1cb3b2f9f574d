"""The torch.fx side: answers Q1/Q2/Q3 with torch.fx.experimental.migrate_gradual_types.

    python bench/peer/run_fx.py BENCHMARK_NAME     # prints one JSON line per question

Procedure (ECOOP'24 §7): trace with torch.fx (`symbolic_trace`; the annotations on `forward`
become the placeholders' types), `transform_all_constraints`, then Z3:
  Q1  1. the constraints alone (unsat: ill-typed, the migration space is empty);
      2. the ranks 1..4 of each input for which a migration exists;
      3. all dimensions static (D(1, v), v >= 1) at the first such rank: a static migration;
      4. otherwise, each dimension alone required static: unsat means it can only be Dyn.
  Q2  step 3 plus the constraints (translated to Z3 over the v's).
  Q3  the branch-free variant (`*_fx.py`) returns each condition; for every condition node the
      graph is cut after it and `evaluate_conditional_with_constraints` decides the condition
      and its negation under the constraints (input == TensorType of static dims + the
      constraints; none at all when there are no constraints).
Times are wall-clock from tracing to the answer, imports excluded. A step that raises (no
inference rule for an operation, say) makes the answer 'n/a' with the error.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import PROGRAMS, answer_all, by_name  # noqa: E402

import torch  # noqa: E402
import torch.fx  # noqa: E402
import z3  # noqa: E402
from torch.fx.experimental.migrate_gradual_types.transform_to_z3 import (  # noqa: E402
    evaluate_conditional_with_constraints, transform_all_constraints)
from torch.fx.experimental.migrate_gradual_types.z3_types import D, tensor_type  # noqa: E402

Z3_TIMEOUT_MS = int(os.environ.get("BENCH_FX_Z3_TIMEOUT_MS", "60000"))


def load(file: str):
    sys.path.insert(0, PROGRAMS)
    name = "fxbench_" + os.path.splitext(file)[0]
    spec = importlib.util.spec_from_file_location(name, os.path.join(PROGRAMS, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tensor_of(rank: int, dims: list):
    return getattr(tensor_type, f"tensor{rank}")(*dims)


def solver(constraints):
    s = z3.Solver()
    s.set("timeout", Z3_TIMEOUT_MS)
    s.add(constraints)
    return s


class Dims:
    """Z3 variables for the inputs' dimensions: flag (0 = Dyn, 1 = static) and value."""

    def __init__(self, params: list, ranks: dict):
        self.params = params
        self.ranks = ranks
        self.flag = {p: [z3.Int(f"bf_{p}_{i}") for i in range(4)] for p in params}
        self.val = {p: [z3.Int(f"bv_{p}_{i}") for i in range(4)] for p in params}

    def input(self, k: int):
        return z3.Const(k + 1, tensor_type)  # placeholders are TVar 1, 2, ... in order

    def shape_eq(self, p: str, rank: int):
        k = self.params.index(p)
        return self.input(k) == tensor_of(rank, [D(self.flag[p][i], self.val[p][i]) for i in range(rank)])

    def static(self, p: str, rank: int, dims=None):
        out = [self.shape_eq(p, rank)]
        for i in (range(rank) if dims is None else dims):
            out += [self.flag[p][i] == 1, self.val[p][i] >= 1]
        return out

    def translate(self, text: str):
        """A constraint such as `5 <= x.shape[0] <= 20` as Z3 over the value variables."""
        node = ast.parse(text, mode="eval").body

        def ev(n):
            if isinstance(n, ast.Constant):
                return n.value
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape":
                p = n.value.value.id
                i = n.slice.value if isinstance(n.slice, ast.Constant) else ev(n.slice)
                return self.val[p][i if i >= 0 else self.ranks[p] + i]
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("dim", "size"):
                p = n.func.value.id
                if n.func.attr == "dim":
                    return self.ranks[p]
                i = n.args[0].value
                return self.val[p][i if i >= 0 else self.ranks[p] + i]
            if isinstance(n, ast.Attribute) and n.attr == "ndim":
                return self.ranks[n.value.id]
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
                return -ev(n.operand)
            if isinstance(n, ast.BinOp):
                a, b = ev(n.left), ev(n.right)
                return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                        ast.FloorDiv: lambda: a / b, ast.Mod: lambda: a % b}[type(n.op)]()
            if isinstance(n, ast.BoolOp):
                parts = [ev(v) for v in n.values]
                return z3.And(*parts) if isinstance(n.op, ast.And) else z3.Or(*parts)
            if isinstance(n, ast.Compare):
                left, out = ev(n.left), []
                for op, c in zip(n.ops, n.comparators):
                    right = ev(c)
                    out.append({ast.Lt: lambda: left < right, ast.LtE: lambda: left <= right,
                                ast.Gt: lambda: left > right, ast.GtE: lambda: left >= right,
                                ast.Eq: lambda: left == right, ast.NotEq: lambda: left != right}[type(op)]())
                    left = right
                return z3.And(*out) if len(out) > 1 else out[0]
            raise ValueError(f"cannot translate {ast.dump(n)}")
        v = ev(node)
        return v if not isinstance(v, bool) else z3.BoolVal(v)


def annotated_ranks(gm, params) -> dict:
    out = {}
    for n in gm.graph.nodes:
        if n.op == "placeholder" and n.name in params:
            t = n.type
            out[n.name] = len(t.__args__) if hasattr(t, "__args__") else None
    return out


def model_shape(m, dims: Dims, p: str, rank: int) -> list:
    out = []
    for i in range(rank):
        v = m.eval(dims.val[p][i], model_completion=True)
        out.append(v.as_long())
    return out


def q1(bench: dict, cls) -> dict:
    params = bench["params"]
    gm = torch.fx.symbolic_trace(cls())
    cons = transform_all_constraints(gm, counter=0)
    s = solver(cons)
    r = s.check()
    if r == z3.unsat:
        return {"answer": "none", "ill_typed": True, "params": {p: {"ranks": [], "shape": None, "dyn_dims": []}
                                                                 for p in params}}
    if r == z3.unknown:
        return {"answer": "unknown", "params": {}}
    ann = annotated_ranks(gm, params)
    dims = Dims(params, {p: ann.get(p) or 4 for p in params})
    ranks = {}
    for p in params:
        if ann.get(p):  # the annotation fixes the rank (step 2 has nothing to find)
            ranks[p] = [ann[p]]
            continue
        ranks[p] = []
        for rank in range(1, 5):
            s.push()
            s.add(dims.shape_eq(p, rank))
            if s.check() != z3.unsat:  # sat, or unknown (kept as possible; step 3 decides)
                ranks[p].append(rank)
            s.pop()
    if any(not ranks[p] for p in params):
        return {"answer": "none", "params": {p: {"ranks": ranks[p], "shape": None, "dyn_dims": []} for p in params}}
    chosen = {p: (ann[p] if ann.get(p) in ranks[p] else ranks[p][0]) for p in params}
    dims.ranks = chosen
    s.push()
    for p in params:
        s.add(dims.static(p, chosen[p]))
    res = s.check()
    out = {p: {"ranks": ranks[p], "shape": None, "dyn_dims": []} for p in params}
    if res == z3.sat:
        m = s.model()
        for p in params:
            out[p]["shape"] = model_shape(m, dims, p, chosen[p])
        s.pop()
        return {"answer": "static", "params": out}
    s.pop()
    if res == z3.unknown:
        return {"answer": "unknown", "params": out, "error": f"Z3 timeout, {Z3_TIMEOUT_MS // 1000} s"}
    for p in params:
        for i in range(chosen[p]):
            s.push()
            for q in params:
                s.add(dims.shape_eq(q, chosen[q]))
            s.add(dims.static(p, chosen[p], dims=[i]))
            r = s.check()
            if r == z3.unsat:
                out[p]["dyn_dims"].append(i)
            elif r == z3.unknown:
                out[p].setdefault("unknown_dims", []).append(i)
            s.pop()
    return {"answer": "none", "params": out}


def q2(bench: dict, cls, constraints: list) -> dict:
    params = bench["params"]
    gm = torch.fx.symbolic_trace(cls())
    ann = annotated_ranks(gm, params)
    dims = Dims(params, {p: ann.get(p) or 4 for p in params})
    cons = transform_all_constraints(gm, counter=0)
    s = solver(cons)
    for p in params:
        s.add(dims.static(p, dims.ranks[p]))
    for c in constraints:
        s.add(dims.translate(c))
    r = s.check()
    if r == z3.sat:
        m = s.model()
        return {"answer": "static", "params": {p: {"shape": model_shape(m, dims, p, dims.ranks[p])} for p in params}}
    return {"answer": "none" if r == z3.unsat else "unknown", "params": {}}


def cut_after(graph: torch.fx.Graph, target: torch.fx.Node, other_conditions=()):
    """A copy of `graph` ending at `target` (the generator reads the last node's constraint as
    the condition). The other conditions, and nodes only they use, are left out: in the
    branchy program Python's `if` consumes them, so they are not part of the computation."""
    dead = {n for n in other_conditions if n is not target}
    changed = True
    while changed:
        changed = False
        for n in graph.nodes:
            if n in dead or n.op in ("output", "placeholder") or n is target:
                continue
            users = [u for u in n.users if u.op != "output"]
            if users and all(u in dead for u in users):
                dead.add(n)
                changed = True
    g = torch.fx.Graph()
    env: dict = {}
    for n in graph.nodes:
        if n.op == "output":
            break
        if n in dead:
            continue
        env[n] = g.node_copy(n, lambda a: env[a])
        if n is target:
            break
    g.output(env[target])
    return g, env[target]


def q3(bench: dict, mod_fx, constraints: list) -> dict:
    params = bench["params"]
    root = getattr(mod_fx, bench["fx_cls"])()
    gm = torch.fx.symbolic_trace(root)
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    conds = out_node.args[0][1]
    ann = annotated_ranks(gm, params)
    dims = Dims(params, {p: ann.get(p) or 2 for p in params})
    user = None
    if constraints:
        parts = []
        for p in params:
            parts += dims.static(p, dims.ranks[p])
        parts += [dims.translate(c) for c in constraints]
        user = z3.And(*parts)
    answers = {}
    every = [n for nodes in conds.values() for n in nodes]
    for tag, nodes in conds.items():
        inst = []
        for node in nodes:
            t0 = time.perf_counter()
            try:
                g, n2 = cut_after(gm.graph, node, every)
                # the generator reads `graph` only when given the module itself (not a GraphModule)
                pos, neg = evaluate_conditional_with_constraints(root, g, n2, counter=0, user_constraints=user)
                inst.append({"pos": str(pos), "neg": str(neg), "seconds": time.perf_counter() - t0})
            except Exception as exc:
                inst.append({"error": f"{type(exc).__name__}: {exc}"[:200], "seconds": time.perf_counter() - t0})
        ok = [i for i in inst if "error" not in i]
        status = "n/a"
        if ok:
            pos_sat = any(i["pos"] == "sat" for i in ok)
            neg_sat = any(i["neg"] == "sat" for i in ok)
            unknown = any("unknown" in (i["pos"], i["neg"]) for i in ok)
            status = ("unknown" if unknown else "depends" if pos_sat and neg_sat else
                      "always-true" if pos_sat else "always-false" if neg_sat else "none")
        answers[tag] = {"status": status, "instances": len(inst), "evaluated": len(ok),
                        "errors": sorted({i["error"] for i in inst if "error" in i})}
    return {"answer": "branches", "branches": answers}



def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bench = by_name(argv[0])
    only = set(argv[1].split(",")) if len(argv) > 1 else None
    mod = load(bench["file"])
    cls = getattr(mod, bench["cls"])
    mod_fx = load(bench["fx_file"]) if bench.get("fx_file") else None
    # warm-up: trace + constraints of a tiny module (first-use costs are not the benchmark's)
    class _W(torch.nn.Module):
        def forward(self, x):
            return torch.add(x, x)
    transform_all_constraints(torch.fx.symbolic_trace(_W()), counter=0)
    def answer(q):
        if q["kind"] == "Q1":
            return q1(bench, cls)
        elif q["kind"] == "Q2":
            return q2(bench, cls, q.get("constraints", []))
        else:
            return q3(bench, mod_fx, q.get("constraints", []))

    answer_all(bench, answer, only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
