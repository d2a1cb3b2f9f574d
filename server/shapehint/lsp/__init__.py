"""The language server: pygls handlers that translate between LSP and the analysis API.

Import boundary: this package is the only one that imports pygls and lsprotocol; the analysis
never imports it. `handlers.py` registers handlers (thin); `language_server.py` holds the state they
share and publishes diagnostics; `features/` are plain functions of an analysis snapshot
returning domain data (with the code-action provider registry); `worker.py` runs analyses and
solver work off the event loop; `settings.py` reads shared/settings.json; `convert.py` converts
positions and types at the protocol boundary; `commands.py` maps shared/commands.json to
implementations (`runcmd.py` device runs, `questions.py` holes/branches/migration, `debug.py`
test hooks). Tests: tests/lsp/ (pytest-lsp through stdio) and tests/e2e/test_neovim.py.
"""
