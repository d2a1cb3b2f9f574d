"""Whole repositories: which files need an analysis (`deps.py`, `scan.py`), the persistent
cache (`cache.py`), one file's analysis within a time budget (`analyse.py`), worker processes
(`pool.py`) and the `shapehint check` run that ties them together (`check.py`).

It reaches the analysis only through `analysis.api.analyze_source` and the module resolution
of `analysis.imports`; it imports neither pygls nor torch.
"""
