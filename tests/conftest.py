import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "server"))


def pytest_addoption(parser):
    parser.addoption("--update-cases", action="store_true", default=False,
                     help="rewrite the inline expectations of tests/cases from the current inference")
