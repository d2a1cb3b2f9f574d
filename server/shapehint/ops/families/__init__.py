"""Importing this package registers every rule. One module per family of operators."""
from importlib import import_module

FAMILIES = [
    "elementwise", "linear",
    # layers and functional NN ops
    "conv", "pool", "norm", "embedding", "rnn", "packed", "attention", "loss", "resize",
    # tensor manipulation
    "views", "joins", "indexing", "reductions", "matmul", "creation", "gather_scatter", "einops_rules", "meta", "misc",
    "linalg", "fft", "scans", "init",
]

for _name in FAMILIES:
    try:
        import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # a family being written may not exist yet
        if exc.name != f"{__name__}.{_name}":
            raise
