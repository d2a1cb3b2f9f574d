"""A helper the analysis cannot follow: the operation is looked up by name at run time."""
import importlib


def prepare(x):
    # flattens everything after the batch axis: the model after it wants 64 features, which
    # none of the common input shapes gives
    return getattr(importlib.import_module("torch"), "flatten")(x, 1)
