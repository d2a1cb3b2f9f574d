"""Importing this package registers every rule. One module per family of operators."""
from importlib import import_module

FAMILIES = [
    "elementwise", "linear",
    # layers and functional NN ops
    "conv", "pool", "norm", "embedding", "rnn", "packed", "attention", "loss", "resize",
    # tensor manipulation
    "views", "permutations", "joins", "indexing", "reductions", "matmul", "creation", "gather_scatter", "einops_rules", "tensor_metadata", "distances", "activations",
    "linalg", "fft", "scans", "init",
]


def load(families=FAMILIES) -> None:
    """Import each family. A listed family whose module is missing stops the server at start-up:
    running without its rules would answer "unknown" for all its operations, silently."""
    for name in families:
        try:
            import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                raise ImportError(f"shapehint: the operator family {name!r} listed in {__name__}.FAMILIES has no "
                                  f"module {__name__}.{name}") from exc
            raise


load()
