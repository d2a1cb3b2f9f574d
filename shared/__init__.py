"""Data shared by the Python server and the VS Code extension.

Installed as the package data `shapehint._shared`; the extension reads the same JSON files.
Nothing here is code: diagnostic codes, settings schema, custom LSP commands, example programs.
"""
