"""A call whose paths return several values (tests/unit/test_values_returns.py)."""
import torch


def repeat_heads(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    b, h, t, d = x.shape
    if n_rep == 1:
        return x
    x = x[:, :, None, :, :].expand(b, h, n_rep, t, d)
    return x.reshape(b, h * n_rep, t, d)


def first_rows(x: torch.Tensor, k: int) -> torch.Tensor:
    rows, cols = x.shape
    if k == 1:
        return x[:1]
    return x[:k]


def differ(x: torch.Tensor, k: int) -> torch.Tensor:
    rows, cols = x.shape
    if k == 2:
        return x[:1]
    return x[:k]


def attend(q: torch.Tensor, k: torch.Tensor, m: torch.Tensor, groups: int):
    keys = repeat_heads(k, groups)
    rows = first_rows(m, groups)
    other = differ(m, groups)
    return {"keys": keys, "rows": rows, "other": other}
