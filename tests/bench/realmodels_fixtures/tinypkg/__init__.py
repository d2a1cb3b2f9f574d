"""A tiny package of models written for the real-model benchmark's own tests (never library code):
relative imports, a config object, a `_make_layer`-style loop, blocks reached from several calls."""
