#!/usr/bin/env bash
# The web chat client, a WhatsApp Web companion in the browser, on the local WhatsApp network:
# installs what is missing (the toolchain and the npm packages: ws, Baileys for the echo bot),
# builds the package, and starts the network on 127.0.0.1 with the client served on it and an echo
# bot to talk to. Open the URL it prints; another browser profile is another device (docs/chat.md).
#
#   bash scripts/chat.sh [--port N] [--data-dir DIR] [--no-bot]   (default port 8380; Ctrl-C stops it)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
scripts/setup.sh --demo
if [ ! -d node_modules/ws ] || [ ! -d node_modules/@whiskeysockets/baileys ]; then
  echo "chat: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
scripts/build-wasm.sh >/dev/null
exec node web/chat/serve.mjs "$@"
