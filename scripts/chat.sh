#!/usr/bin/env bash
# The web chat client on its relay: installs what is missing (the toolchain and the npm packages,
# which include the WebSocket library `ws`), builds the package, and starts the relay on
# 127.0.0.1. Open the URL it prints in two or three browser windows, one user each (docs/chat.md).
#
#   bash scripts/chat.sh [--port N]      (default 8380; Ctrl-C stops the relay)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
scripts/setup.sh --demo
if [ ! -d node_modules/ws ]; then
  echo "chat: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
scripts/build-wasm.sh >/dev/null
exec node web/chat/server.mjs "$@"
