"""The analysis API used by the CLI, the language server and device run.

`analyze_source(text, path)` analyses one module from scratch; `Workspace` keeps documents and
warm per-function summaries and re-analyses only what an edit touched. Both return an
`AnalysisResult` (plain data; see result.py); `analyze_session` and `Workspace.session` give
the `AnalysisSession` the questions ask (session.py). Nothing here imports pygls, lsprotocol or torch.
"""
from __future__ import annotations

from .result import AnalysisResult
from .frames import Cancelled
from .session import AnalysisSession


def analyze_source(text: str, path: str = "<string>", config=None, cancel=None,
                   records: bool = True, functions=None, ranks=None, compile_errors: bool = True) -> AnalysisResult:
    """Analyse one module. Never raises for any input text (cancellation excepted). The records
    (`result.values`, hover's index) are built on first read: diagnostics and the questions do
    not need them; with `records=False` they are never built (`values` is empty). `functions`:
    only these functions get their own analysis; `ranks`: ranks for parameters that would have
    an unknown one; `compile_errors=False`: no SH001 for errors only CPython's compiler finds
    (engine.run)."""
    return analyze_session(text, path, config, cancel, records, functions, ranks, compile_errors).result


def analyze_session(text: str, path: str = "<string>", config=None, cancel=None,
                    records: bool = True, functions=None, ranks=None, compile_errors: bool = True) -> AnalysisSession:
    """`analyze_source`, with the live analysis the questions need (session.py)."""
    from .engine import run
    try:
        return run(text, path, config=config, cancel=cancel, on_store=interrupt_hook(cancel),
                   defer_values=True, records=records, functions=functions, ranks=ranks,
                   compile_errors=compile_errors)
    except Cancelled:
        raise
    except (Exception, RecursionError) as exc:  # a bug must cost one file's answers, not the session
        return failed(text, path, exc)


def warm_up() -> None:
    """Import everything an analysis uses, the operator rules included (they load on the first
    rule looked up, which `import torch` alone does not do): once per process, before workers
    are forked from it or a user waits on the first answer."""
    analyze_source("import torch\ntorch.zeros(1)\n", "<warm-up>", records=False)


def failed(text: str, path: str, exc: BaseException) -> AnalysisSession:
    """The session of an analysis that raised: no answers, and the error in `stats`."""
    return AnalysisSession(AnalysisResult(path, text, stats={"internal_errors": [f"{type(exc).__name__}: {exc}"],
                                                             "reanalysed": []}))


def interrupt_hook(cancel):
    """Cancelling a job interrupts the Z3 contexts its analysis created (`job.on_cancel(fn)`)."""
    register = getattr(cancel, "on_cancel", None)
    if register is None:
        return None
    return lambda store: register(store.interrupt)
