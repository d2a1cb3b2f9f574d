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
