"""Device-run input sizes that satisfy the user's assertions (solver/nearest.py, used by
devicerun/candidates.py: z3 stays under solver/)."""
from shapehint.devicerun.candidates import _assignments
from shapehint.solver.nearest import nearest_values


def test_values_satisfy_the_constraints():
    got = nearest_values(["C", "H"], {"C": 3, "H": 5}, ["C % 8 == 0", "C > 100", "H * 4 == C"])
    assert got["C"] % 8 == 0 and got["C"] > 100 and got["H"] * 4 == got["C"]


def test_unsatisfiable_constraints_give_none():
    assert nearest_values(["C"], {"C": 3}, ["C > 5", "C < 2"]) is None


def test_a_constraint_z3_cannot_take_is_left_out():
    got = nearest_values(["C"], {"C": 3}, ["C > 4", "undefined_name > 1"])
    assert got is not None and got["C"] > 4


def test_candidates_use_the_solver_when_the_ladder_misses():
    envs = _assignments(["B", "C"], "B", ["C % 16 == 0"])
    assert envs and all(e["B"] == 2 and e["C"] % 16 == 0 for e in envs)


def test_a_wanted_value_that_satisfies_is_kept():
    assert nearest_values(["C", "H"], {"C": 16, "H": 7}, ["C % 8 == 0"]) == {"C": 16, "H": 7}
