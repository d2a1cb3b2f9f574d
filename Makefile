# Two entry points for a fresh machine (see README):
#   make demo  - install what is missing, then check and infer the built-in examples
#   make test  - install what is missing (Python, Debian and npm packages), then run every test
#   make realmodels - install what is missing, fetch the pinned torchvision/timm/transformers wheels
#                into ~/.cache/shapehint/realmodels, run the real-model benchmark (bench/README.md)
PY ?= python3
PIP = $(PY) -m pip install -q --disable-pip-version-check

.PHONY: demo test realmodels install install-test install-system install-node test-python test-node package-from-clone

install:
	$(PIP) -c ci-constraints.txt -e ".[torch]"

demo: install
	@echo "== shapehint check shared/examples (exit status 1 is expected: cnn_bug.py has a bug to catch)"
	-shapehint check shared/examples
	@echo "== shapehint infer shared/examples/gpt.py --format text"
	shapehint infer shared/examples/gpt.py --format text

install-test:
	$(PIP) -c ci-constraints.txt -e ".[torch,test]"

install-system:
	@command -v nvim >/dev/null 2>&1 || { (apt-get update -qq || true) && apt-get install -y -qq neovim >/dev/null; }

install-node:
	@if [ -f vscode-extension/package.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi

# The import rules first (pyproject's [tool.importlinter]; docs/ARCHITECTURE.md), on this tree's package.
test-python:
	PYTHONPATH=server lint-imports --no-cache
	$(PY) -m pytest -q -p no:cacheprovider

test-node:
	@if grep -q '"test:ext"' package.json; then npm run -s package && npm run -s test:ext; fi
	@if grep -q '"test:e2e"' package.json; then npm run -s test:e2e; fi

# The README's extension command on a fresh clone of the committed tree (issue 26): `npm ci` and
# `npm run package` alone must build, bundle the server and package the .vsix. An install step
# (it downloads npm and Python packages), so it runs before the timed tests.
package-from-clone:
	@if [ -f vscode-extension/package.json ] && git rev-parse --git-dir >/dev/null 2>&1; then \
	  tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	  git clone --quiet "$(CURDIR)" "$$tmp/clone" && cd "$$tmp/clone" && \
	  npm ci --no-audit --no-fund --loglevel=error && npm run -s package >/dev/null && \
	  test -s vscode-extension/shapehint-linux-x64.vsix && \
	  echo "package-from-clone: a fresh clone packages vscode-extension/shapehint-linux-x64.vsix"; \
	fi

test: install-test install-system install-node package-from-clone test-python test-node

realmodels: install
	$(PY) bench/realmodels/realmodels.py --jobs 2 $(ARGS)
