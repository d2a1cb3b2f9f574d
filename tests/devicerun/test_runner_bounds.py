"""The runner's memory bound counts from what the process has mapped once torch is imported: a
CUDA build of torch maps gigabytes of libraries even for a CPU run, and a limit counted from zero
made `import torch` itself fail (seen on an H100 machine: `--memory-limit 600` gave
"TorchMissing: libtorch_cuda.so: failed to map segment"). Here a large mapping made before the
limit stands in for those libraries."""
import os
import subprocess
import sys

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "server", "shapehint", "devicerun", "runner_bounds.py")
PROGRAM = f"""
import importlib.util, mmap
spec = importlib.util.spec_from_file_location("bounds", {HERE!r})
bounds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bounds)
libraries = mmap.mmap(-1, 3 * 2**30)  # mapped, never touched: address space, not memory
bounds.limit_address_space(256)
small = bytearray(64 * 2**20)  # within the run's own 256 MiB
print("small ok")
try:
    big = bytearray(512 * 2**20)
    print("big ok")
except MemoryError:
    print("big refused")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the limit reads /proc/self/status")
def test_the_address_space_limit_is_counted_above_what_was_mapped_before_it():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["small", "ok", "big", "refused"], out.stdout + out.stderr
