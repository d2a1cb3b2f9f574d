"""Starts the ShapeHint language server for the VS Code extension.

    shapehint_launch.py probe bundled LIBS   one JSON line: interpreter version, importability
    shapehint_launch.py probe installed
    shapehint_launch.py serve bundled LIBS   the server on stdio, importing from LIBS first
    shapehint_launch.py serve installed      the server on stdio, from the interpreter's packages

The bundled libraries (built with `pip install --target`, see scripts/bundle-server.sh) are put
on sys.path here rather than through PYTHONPATH, so the interpreters that the server starts for
device runs never inherit them. The probe is written to run (and fail cleanly) on any Python, so
that the extension can say which version it found.
"""
import json
import sys

MODULES = ("shapehint.cli", "pygls.protocol", "cattrs", "z3", "parso")


def _use(source, libs):
    if source == "bundled":
        sys.path.insert(0, libs)


def probe(source, libs):
    out = {"python": ".".join(str(v) for v in sys.version_info[:3]), "executable": sys.executable,
           "source": source, "ok": False, "error": None}
    _use(source, libs)
    try:
        for name in MODULES:
            __import__(name)
        out["server"] = sys.modules["shapehint"].__file__
        if source == "bundled" and not out["server"].startswith(libs):
            raise ImportError("shapehint is not in the bundled libraries (%s)" % libs)
        out["ok"] = True
    except Exception as exc:  # any import failure (missing, wrong ABI, syntax) means "not usable"
        out["error"] = "%s: %s" % (type(exc).__name__, exc)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


def serve(source, libs):
    _use(source, libs)
    from shapehint.cli import main
    return main(["lsp"])


def main(argv):
    if len(argv) < 2 or argv[0] not in ("probe", "serve") or argv[1] not in ("bundled", "installed"):
        sys.stderr.write(__doc__)
        return 2
    libs = argv[2] if len(argv) > 2 else ""
    return (probe if argv[0] == "probe" else serve)(argv[1], libs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
