"""Generator of realistic N-line PyTorch modules for the benchmarks.

A generated module looks like a model file from a real project: imports, many small
`nn.Module` classes (each with `__init__` and `forward`), helper functions, jaxtyping or
`assert`-style shape annotations on some entry points, and no module-level execution (the
only module-level code is a small `build_model()` function). Everything is deterministic
for a given (lines, seed). The generated code has no shape errors; `edit_line()` gives a
one-line edit inside one `forward` that alternates between a correct and a wrong line.

    python bench/gen.py 2000 > /tmp/m2000.py          # one module
    python bench/gen.py 2000 --seed 3 --check         # and run `shapehint check` on it
"""
from __future__ import annotations

import argparse
import random
import sys

HEADER = '''"""Generated model zoo ({lines} lines, seed {seed}): blocks, heads and helpers."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


'''

CH = [16, 24, 32, 48, 64, 96, 128]
HID = [64, 96, 128, 192, 256, 384, 512]


def _conv_block(k: int, r: random.Random) -> str:
    cin, cout = r.choice(CH), r.choice(CH)
    ks = r.choice([1, 3, 5])
    return f'''class ConvBlock{k}(nn.Module):
    """conv-bn-relu twice, with a projection shortcut."""

    def __init__(self, in_ch: int = {cin}, out_ch: int = {cout}):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, kernel_size={ks}, padding={ks // 2}, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.proj = nn.Conv2d(in_ch, out_ch, kernel_size=1)

    def forward(self, x: Float[Tensor, "B C H W"]):
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return F.relu(h + self.proj(x))


'''


def _mlp(k: int, r: random.Random) -> str:
    d, h = r.choice(HID), r.choice(HID) * 2
    return f'''class MLP{k}(nn.Module):
    def __init__(self, dim: int = {d}, hidden: int = {h}, p: float = 0.1):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(p)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        B, T, C = x.shape
        h = self.fc1(self.norm(x))
        h = self.drop(F.gelu(h))
        h = self.fc2(h)
        return x + h


'''


def _attention(k: int, r: random.Random) -> str:
    heads = r.choice([2, 4, 8])
    d = heads * r.choice([16, 32, 64])
    return f'''class Attention{k}(nn.Module):
    def __init__(self, dim: int = {d}, heads: int = {heads}):
        super().__init__()
        assert dim % heads == 0
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = 1.0 / math.sqrt(dim // heads)

    def forward(self, x: Float[Tensor, "B T C"]):
        B, T, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.out(y)


'''


def _head(k: int, r: random.Random) -> str:
    c, n = r.choice(CH), r.choice([10, 100, 1000])
    return f'''class Head{k}(nn.Module):
    def __init__(self, channels: int = {c}, num_classes: int = {n}):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x):
        assert x.dim() == 4 and x.shape[1] == {c}
        h = self.pool(x)
        h = torch.flatten(h, 1)
        return self.fc(h)


'''


def _helpers(k: int, r: random.Random) -> str:
    return f'''def flatten_tokens{k}(x):
    B, T, C = x.shape
    return x.reshape(B * T, C)


def pairwise_scores{k}(a, b):
    """Scaled dot products of every row of `a` with every row of `b`."""
    s = a @ b.transpose(-2, -1)
    return s / math.sqrt(a.shape[-1])


def downsample{k}(x, factor: int = 2):
    return F.max_pool2d(x, kernel_size=factor, stride=factor)


'''


def _encoder(k: int, r: random.Random, parts: dict) -> str:
    heads = r.choice([2, 4])
    d = heads * 32
    return f'''class Encoder{k}(nn.Module):
    """Token encoder: embedding, attention and MLP, then mean pooling."""

    def __init__(self, vocab: int = 1000, dim: int = {d}, num_classes: int = 10):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = Attention{parts['attn']}(dim, {heads})
        self.mlp = MLP{parts['mlp']}(dim, 4 * dim)
        self.ln = nn.LayerNorm(dim)
        self.cls = nn.Linear(dim, num_classes)

    def forward(self, idx):
        B, T = idx.shape
        h = self.embed(idx)
        h = h + self.attn(self.ln(h))
        h = self.mlp(h)
        flat = flatten_tokens{parts['helpers']}(h)
        pooled = flat.view(B, T, -1).mean(dim=1)
        return self.cls(pooled)


'''


def _cnn(k: int, r: random.Random, parts: dict) -> str:
    c1, c2 = r.choice(CH), r.choice(CH)
    return f'''class SmallCNN{k}(nn.Module):
    def __init__(self, in_ch: int = 3, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(in_ch, {c1}, kernel_size=3, stride=2, padding=1)
        self.block = ConvBlock{parts['conv']}({c1}, {c2})
        self.head = nn.Linear({c2}, num_classes)

    def forward(self, x: Float[Tensor, "B 3 H W"]):
        h = F.relu(self.stem(x))
        h = self.block(h)
        h = downsample{parts['helpers']}(h)
        h = h.mean(dim=(2, 3))
        return self.head(h)


'''


KINDS = ("conv", "mlp", "attn", "head", "helpers")


def generate(lines: int, seed: int = 0) -> str:
    """A module of about `lines` lines (never fewer)."""
    r = random.Random(seed * 7919 + lines)
    out = [HEADER.format(lines=lines, seed=seed)]
    n = out[0].count("\n")
    k = 0
    parts: dict = {}
    last = None
    simple = (("conv", _conv_block), ("mlp", _mlp), ("attn", _attention), ("head", _head), ("helpers", _helpers))
    while n < lines - 3:
        k += 1
        for kind, fn in simple + (("encoder", _encoder), ("cnn", _cnn)):
            text = fn(k, r, parts) if kind in ("encoder", "cnn") else fn(k, r)
            parts[kind] = k
            out.append(text)
            n += text.count("\n")
            if kind == "cnn":
                last = k
            if last is not None and n >= lines - 3:
                break
    out.append(f"def build_model():\n    return Encoder{last}(), SmallCNN{last}()\n")
    return "".join(out)


def edit_target(text: str) -> tuple[int, str, str]:
    """(0-based line, correct text, wrong text) of the one-line edit used by the latency bench:
    the `h = self.fc2(h)` line of the MLP in the middle of the module; the wrong version feeds
    fc2 one feature too few (`h[..., 1:]`: a provable shape error)."""
    lines = text.split("\n")
    idx = [i for i, s in enumerate(lines) if s.strip() == "h = self.fc2(h)"]
    i = idx[len(idx) // 2]
    good = lines[i]
    bad = good.replace("self.fc2(h)", "self.fc2(h[..., 1:])")
    return i, good, bad


def hover_targets(text: str, limit: int = 400) -> list:
    """(0-based line, 0-based col) of tensor-valued names on assignment lines inside forwards."""
    out = []
    for i, s in enumerate(text.split("\n")):
        st = s.lstrip()
        if s.startswith("        ") and " = " in st and not st.startswith(("self.", "assert", "super")):
            name = st.split(" = ")[0].split(",")[0].strip()
            if name.isidentifier() and name not in ("B", "T", "C"):
                out.append((i, len(s) - len(st)))
    step = max(1, len(out) // limit)
    return out[::step][:limit]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lines", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="run `shapehint check` on it")
    a = ap.parse_args(argv)
    text = generate(a.lines, a.seed)
    if a.check:
        import subprocess
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(text)
        return subprocess.call([sys.executable, "-m", "shapehint", "check", f.name])
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
