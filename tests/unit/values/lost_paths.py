"""One helper called with registries of two classes: through one it calls a function the analysis
follows, through the other one it cannot follow, of another rank
(tests/unit/test_values_lost_paths.py; analysis/reconfiguration.py, `call_kinds`)."""
import importlib
from collections.abc import Mapping

import torch


def plain(q, k, v):
    w = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
    return (w @ v).transpose(1, 2), w


def flat(q, k, v):
    f = importlib.import_module("torch").flatten  # (found at run time: not followed)
    return f(q.transpose(1, 2), 2), q.sum(-1)


def merged(q, k, v):
    return q.transpose(1, 2), None


class Lookup(Mapping):
    _entries = {}

    def __getitem__(self, key):
        return self._entries[key]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)


class Known(Lookup):
    _entries = {"plain": plain}


class Unfollowed(Lookup):
    _entries = {"flat": flat}


KNOWN, UNFOLLOWED = Known(), Unfollowed()


def attend(x: "Tensor[B, T, 64]", impl: str, table):
    b, t, c = x.shape
    q = x.view(b, t, 4, 16).transpose(1, 2)
    fn = plain
    if impl != "plain":
        fn = table[impl]
    out, w = fn(q, q, q)
    return out


def known(x: "Tensor[B, T, 64]", impl: str):
    return attend(x, impl, KNOWN)


def unfollowed(x: "Tensor[B, T, 64]", impl: str):
    return attend(x, impl, UNFOLLOWED)


def run_with(x: "Tensor[B, T, 64]", fn):
    b, t, c = x.shape
    q = x.view(b, t, 4, 16).transpose(1, 2)
    got, _ = fn(q, q, q)
    return got


def with_plain(x: "Tensor[B, T, 64]"):
    return run_with(x, plain)


def with_flat(x: "Tensor[B, T, 64]"):
    return run_with(x, flat)


def with_merged(x: "Tensor[B, T, 64]"):
    return run_with(x, merged)
