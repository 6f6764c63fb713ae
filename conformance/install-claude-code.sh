#!/bin/sh
# Installs the Claude Code CLI the conformance suite uses as its oracle into
# .cache/claude-code (gitignored), pinned: 2.1.330 ships a native binary, so
# Node 20's npm installs it despite the package's engines field (an unpinned
# install on Node 20 resolves to an older release). Idempotent: an install of
# the pinned version already there is kept. Exits non-zero, with npm's
# message, when the package cannot be installed (no registry, no npm).
set -eu
version=2.1.330
root=$(cd "$(dirname "$0")/.." && pwd)
dir="${CLAUDE_CODE_DIR:-$root/.cache/claude-code}"
pkg="$dir/node_modules/@anthropic-ai/claude-code/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
	exit 0
fi
command -v npm >/dev/null || { echo "npm is not installed" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
	--engine-strict=false "@anthropic-ai/claude-code@$version"
