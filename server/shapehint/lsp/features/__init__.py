"""Editor features as plain functions of (AnalysisResult snapshot, position, settings).

They return domain data (Markdown strings, hints and edits with code-point positions) and never
see protocol types, so they are unit-testable without a transport; `lsp/convert.py` turns them
into LSP objects.
"""
