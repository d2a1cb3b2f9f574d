"""Set-up (never a test): the pinned wheels, unpacked as whole package trees, and their pure-Python deps.

    python bench/realmodels/fetch.py [--cache DIR]

Everything lands in the cache (default `~/.cache/shapehint/realmodels`, or $SHAPEHINT_REALMODELS_CACHE):
  wheels/   the three wheels exactly as the registry serves them (`pip download --no-deps`)
  trees/P/  each wheel unpacked whole, so a model file's relative and package imports resolve when
            ShapeHint analyses it in place and when the harness imports it
  deps/     what timm and transformers import besides torch (`pip install --target`): kept out of the
            main environment, and never torchvision/timm/transformers themselves, since pip would
            replace the installed CPU torch to satisfy torchvision's pin (torch>=2.14)
Idempotent: a step whose result is already there is skipped. No weights are ever downloaded.
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import zipfile

PINS = {"torchvision": "0.29.1", "timm": "1.0.31", "transformers": "4.57.6"}
# What timm/transformers import at module level, minus torch, torchvision and numpy (installed).
# Bounds are transformers 4.57.6's own (its import checks them); none of these pulls torch.
DEPS = ["huggingface-hub>=0.34,<1.0", "tokenizers>=0.22,<=0.23.0", "safetensors>=0.4.3",
        "tqdm>=4.27", "pyyaml>=5.1", "regex!=2019.12.17", "requests", "filelock", "packaging>=20.0",
        "pillow"]


def default_cache() -> str:
    return os.environ.get("SHAPEHINT_REALMODELS_CACHE") or os.path.expanduser("~/.cache/shapehint/realmodels")


def tree(cache: str, package: str) -> str:
    return os.path.join(cache, "trees", package)


def ready(cache: str) -> bool:
    return all(os.path.isdir(os.path.join(tree(cache, p), p)) for p in PINS) and \
        os.path.isfile(os.path.join(cache, "deps", ".complete"))


def _pip(*args: str) -> None:
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)


def fetch(cache: str) -> None:
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    for pkg, ver in PINS.items():
        found = glob.glob(os.path.join(wheels, f"{pkg}-{ver}-*.whl"))
        if not found:
            _pip("download", "--no-deps", f"{pkg}=={ver}", "-d", wheels)
            found = glob.glob(os.path.join(wheels, f"{pkg}-{ver}-*.whl"))
        dest = tree(cache, pkg)
        if not os.path.isdir(os.path.join(dest, pkg)):
            tmp = dest + ".tmp"
            with zipfile.ZipFile(found[0]) as z:
                z.extractall(tmp)
            os.replace(tmp, dest)  # a half-unpacked tree never looks ready
    deps = os.path.join(cache, "deps")
    if not os.path.isfile(os.path.join(deps, ".complete")):
        _pip("install", "--target", deps, "--upgrade", *DEPS)
        open(os.path.join(deps, ".complete"), "w").close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=default_cache())
    a = ap.parse_args(argv)
    fetch(a.cache)
    print(a.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
