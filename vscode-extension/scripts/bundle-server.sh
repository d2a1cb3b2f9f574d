#!/usr/bin/env bash
# Installs the repository's server and its dependencies into vscode-extension/bundled/libs for
# the .vsix (as vscode-black-formatter does with `pip install --target`). The libraries are
# resolved for the oldest supported Python (3.10), backports included (see BACKPORTS); they are
# pure Python or abi3/manylinux wheels, so the same folder loads on every Python from 3.10 on.
# Usage: scripts/bundle-server.sh [PYTHON]   (run from anywhere; paths are relative to this file)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ext="$(dirname "$here")"
repo="$(dirname "$ext")"
py="${1:-${PYTHON:-python3}}"
libs="$ext/bundled/libs"
wheels="$ext/bundled/.wheels"

# pip evaluates environment markers (`exceptiongroup; python_version < "3.11"`) for the Python
# running pip, not for --python-version, so the backports that 3.10 needs are named here: cattrs
# needs exceptiongroup, and shapehint reads pyproject.toml with tomli before 3.11. Pure Python,
# never imported on 3.11+.
BACKPORTS="exceptiongroup tomli"

rm -rf "$libs" "$wheels"
mkdir -p "$libs" "$wheels"
# 1. the server itself as a wheel (pure Python), 2. it and its dependencies as binary wheels
#    for the target platform, never building anything from source.
#    The wheel is built from a copy so that setuptools leaves no build/ or egg-info in the repo.
src="$(mktemp -d)"; trap 'rm -rf "$src"' EXIT
cp -r "$repo/pyproject.toml" "$repo/server" "$repo/shared" "$src/"
[ -f "$repo/README.md" ] && cp "$repo/README.md" "$src/" || touch "$src/README.md"
find "$src" \( -name "__pycache__" -o -name "*.egg-info" \) -prune -exec rm -rf {} +
"$py" -m pip wheel --quiet --no-deps --wheel-dir "$wheels" "$src"
"$py" -m pip install --quiet --disable-pip-version-check --no-compile \
  --target "$libs" --implementation cp --python-version 3.10 \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform linux_x86_64 \
  --only-binary=:all: "$wheels"/shapehint-*.whl $BACKPORTS
rm -rf "$wheels" "$libs"/bin
# Guard: every subpackage of server/shapehint must be in the wheel (pyproject lists packages by
# hand). A missing one is copied from the source tree, loudly, so the .vsix still works.
( cd "$repo/server" && find shapehint -name __init__.py -not -path "*/__pycache__/*" ) | while read -r init; do
  pkg="$(dirname "$init")"
  if [ ! -f "$libs/$pkg/__init__.py" ]; then
    echo "WARNING: $pkg is missing from the shapehint wheel (add it to [tool.setuptools] packages); copying it" >&2
    mkdir -p "$libs/$pkg" && cp "$repo/server/$pkg"/*.py "$libs/$pkg/"
  fi
done
find "$libs" -name "__pycache__" -type d -prune -exec rm -rf {} +
echo "bundled $(ls "$libs" | grep -c dist-info) distributions into ${libs#"$repo"/}"
