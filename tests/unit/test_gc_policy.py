"""gc_policy.paused(): the collector is off inside every analysis, the pause nests and is shared by
threads, and it ends as it began."""
import gc
import threading

from shapehint import gc_policy
from shapehint.analysis import engine


def test_paused_nests_and_restores():
    assert gc.isenabled()
    with gc_policy.paused():
        assert not gc.isenabled()
        with gc_policy.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_paused_leaves_a_disabled_collector_disabled():
    gc.disable()
    try:
        with gc_policy.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_pauses_from_threads_end_enabled():
    inside, release = threading.Barrier(3), threading.Event()

    def worker():
        with gc_policy.paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_an_analysis_runs_with_the_collector_paused(monkeypatch):
    seen = []
    real = engine.analyze_function

    def spy(it, f):
        seen.append(gc.isenabled())
        return real(it, f)

    monkeypatch.setattr(engine, "analyze_function", spy)
    engine.analyze("import torch\n\ndef f(x):\n    return x @ torch.zeros(3, 4)\n", "m.py")
    assert seen == [False]
    assert gc.isenabled()


def test_a_check_workers_file_leaves_no_interpreter_behind(monkeypatch):
    """After `check` analyses a file and its worker releases (pool._work), the analysis's
    interpreter is gone, not frozen as a survivor of a collection made while it was still held
    (each file's dead interpreter stayed until the 64th file's sweep: project/analyse.py)."""
    import weakref
    from shapehint.analysis import interp
    from shapehint.project.analyse import analyse
    made = []
    real_init = interp.Interp.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(weakref.ref(self))

    monkeypatch.setattr(interp.Interp, "__init__", init)
    monkeypatch.setattr(gc_policy, "_releases", 0)  # (not the 64th release: no sweep)
    code = "import torch\nimport torch.nn as nn\n\nclass M(nn.Module):\n    def __init__(self):\n" \
           "        super().__init__()\n        self.fc = nn.Linear(4, 5)\n\n    def forward(self, x):\n" \
           "        return self.fc(x)\n\ny = M()(torch.zeros(2, 4))\n"
    try:
        out = analyse("m.py", code, None, None)
        gc_policy.release()
        assert out["diagnostics"] == [] and made
        assert all(r() is None for r in made)
    finally:
        gc_policy.sweep()  # what the test froze, back in the collector's sight
