"""Safety: hostile or broken modules are contained and reported; nothing runs unless asked."""
import os
import threading
import time

from shapehint.devicerun import api
from shapehint.devicerun.inputs import plan_entries

from .helpers import alive, fixture, line_of, needs_sigsegv, run


def test_timeout_kills_the_whole_process_group(tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("SPAWN_PID_FILE", str(pid_file))
    _, text = fixture("bad.py")
    t0 = time.monotonic()
    r = run("bad.py", entry="spawn", timeout=3, inputs={"x": "3"})
    assert time.monotonic() - t0 < 3 + api.STARTUP_S
    assert r["error"]["type"] == "Timeout" and "3 s" in r["error"]["message"]
    assert r["error"]["line"] in range(line_of(text, "p = subprocess"), line_of(text, "time.sleep(0.1)") + 1)
    child = int(pid_file.read_text())
    for _ in range(50):  # the grandchild got SIGKILL with its group; give the kernel a moment
        if not alive(child):
            break
        time.sleep(0.1)
    assert not alive(child)


def test_infinite_loop_times_out_with_its_line():
    _, text = fixture("bad.py")
    r = run("bad.py", entry="hang", timeout=3, inputs={"x": "3"})
    assert r["error"]["type"] == "Timeout"
    assert r["error"]["line"] in (line_of(text, "y = y + 0"), line_of(text, "y = y + 0") - 1)  # in the loop
    assert any(it["name"] == "y" for it in r["lines"])  # the partial result survived


def test_sys_exit_is_an_error_not_an_exit():
    _, text = fixture("bad.py")
    r = run("bad.py", entry="leave", inputs={"x": "2,3"})
    assert r["error"]["type"] == "SystemExit" and "sys.exit(3)" in r["error"]["message"]
    assert r["error"]["line"] == line_of(text, "sys.exit(3)")


def test_os_exit_is_reported():
    r = run("bad.py", entry="quit_hard", inputs={"x": "3"})
    assert r["error"]["type"] == "Exited" and "status 7" in r["error"]["message"]


@needs_sigsegv
def test_segfault_is_reported_with_its_line():
    _, text = fixture("bad.py")
    r = run("bad.py", entry="segv", inputs={"x": "3"})
    assert r["error"]["type"] == "SIGSEGV" and "segmentation fault" in r["error"]["message"]
    assert r["error"]["line"] == line_of(text, "os.kill(os.getpid(), signal.SIGSEGV)")


def test_output_flood_is_bounded():
    r = run("bad.py", entry="flood", timeout=3, inputs={"x": "3"})
    assert r["error"]["type"] == "Timeout"
    assert 0 < len(r["stdout"]) <= 65536
    assert len(r["process"]["stderr"]) <= api.OUTPUT_KEEP + 100


def test_huge_allocation_is_a_clean_error():
    _, text = fixture("bad.py")
    r = run("bad.py", entry="hog", inputs={"x": "3"})
    assert r["error"]["type"] == "OutOfMemory" and r["error"]["line"] == line_of(text, "big = torch.empty")
    assert "allocate" in r["error"]["message"]


def test_untrusted_is_refused_and_nothing_runs(tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    monkeypatch.setenv("SHAPEHINT_TEST_MARKER", str(marker))
    path, text = fixture("marker.py")
    r = api.device_run(path, text, trusted=False, infer={})
    assert r["refused"] and r["error"]["type"] == "Untrusted" and r["lines"] == []
    # planning, describing and comparing never execute the module
    plans = plan_entries(text)
    api.describe(path, plans, "cpu", "python", 1)
    api.assemble(path, text, "cpu", {"calls": [], "entries": []}, {"values": []})
    assert not marker.exists()
    cancel = threading.Event()
    cancel.set()
    assert api.device_run(path, text, cancel_event=cancel, infer={})["error"]["type"] == "Cancelled"
    assert not marker.exists()
    r = api.device_run(path, text, device="meta", infer={})  # the explicit call does run it
    assert r["error"] is None and marker.read_text() == "ran"


def test_cancel_stops_a_running_module():
    cancel = threading.Event()
    threading.Timer(3.0, cancel.set).start()
    r = run("bad.py", entry="hang", timeout=60, cancel_event=cancel, inputs={"x": "3"})
    assert r["error"]["type"] == "Cancelled"
    assert r["process"]["elapsed_s"] < 60


def test_memory_watchdog_stops_a_growing_module(tmp_path):
    mod = tmp_path / "grow.py"
    mod.write_text("import torch\n\n\ndef grow(x):\n    assert x.dim() == 1\n    keep = []\n"
                   "    while True:\n        keep.append(torch.ones(2**25))\n")
    r = api.device_run(str(mod), entry="grow", device="cpu", memory_limit_mb=600, timeout=60, infer={},
                        inputs={"x": "3"})
    assert r["error"]["type"] == "OutOfMemory", r["error"]
