"""The questions of the seeds, answered over a finished analysis (DESIGN §3):
Q1 static migration and Q2 migration under constraints (migrate.py), Q3 branch elimination
(branches.py), and shape holes (holes.py). Each answer is a solver query over the facts the
analysis collected; `--assume` constraints (assume.py) are added on top. Edits for the code
actions live in edits.py. Nothing here imports pygls or torch.
"""
