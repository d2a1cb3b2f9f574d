import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "server"))


def pytest_addoption(parser):
    parser.addoption("--update-cases", action="store_true", default=False,
                     help="rewrite the inline expectations of tests/cases from the current inference")


# A construction context whose run raises is dropped quietly for users (failed_contexts.py: a bug
# of the analysis must cost that context alone), which would hide the bug from the tests too: any
# test during which one fails fails, unless it says it provokes one.
import logging  # noqa: E402

import pytest  # noqa: E402

FAILED_CONTEXTS_LOG = "shapehint.analysis.failed_contexts"


class _Failures(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture(autouse=True)
def _no_failed_context(request):
    log, handler = logging.getLogger(FAILED_CONTEXTS_LOG), _Failures()
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    if handler.records and request.node.get_closest_marker("failed_context") is None:
        first = handler.records[0]
        exc = first.exc_info[1] if first.exc_info else None
        pytest.fail(f"{len(handler.records)} construction context(s) failed: {first.getMessage()}: {exc!r}")
