"""Device run: execute a module in a child interpreter and compare observed with inferred shapes.

Public API (nothing runs on import): `device_run`, `device_run_many`, `to_diagnostics`; the CLI
glue is `devicerun.run_command` (`add_arguments`, `main`). `runner.py` is the standalone child script.
"""
from .api import device_run, device_run_many, to_diagnostics  # noqa: F401
