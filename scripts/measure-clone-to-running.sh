#!/usr/bin/env bash
# Clone-to-running time as a newcomer meets it: git clone, the README's `npm install && npm start`,
# until /healthz answers. Usage: scripts/measure-clone-to-running.sh [repository] (default: this one).
# An empty npm cache is used so downloads count too.
set -euo pipefail
repo="${1:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}"
work="$(mktemp -d)"
port=7499
trap 'fuser -k "$port/tcp" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
start=$(date +%s.%N)
git clone -q "$repo" "$work/cairn"
cd "$work/cairn"
npm install --cache "$work/npm-cache" >"$work/install.log" 2>&1
installed=$(date +%s.%N)
PORT=$port CAIRN_DATA_DIR="$work/data" npm start >"$work/start.log" 2>&1 &
until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.2; done
running=$(date +%s.%N)
printf 'clone + npm install: %.1f s; to /healthz answering: %.1f s; node_modules: %s\n' \
  "$(echo "$installed - $start" | bc)" "$(echo "$running - $start" | bc)" "$(du -sh node_modules | cut -f1)"
