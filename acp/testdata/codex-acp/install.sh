#!/bin/sh
# Installs codex-acp, the ACP adapter around OpenAI's Codex (a native
# binary shipped in a per-platform npm package), into .cache/codex-acp at
# the repository's root, for acp's TestCodexACP, which points it at a fake
# Responses API on loopback. Pinned: the test relies on this version's
# config keys (model_providers, approval policy) and session modes.
set -eu
version=0.16.0
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir="$root/.cache/codex-acp"
pkg="$dir/node_modules/@zed-industries/codex-acp"
if [ -f "$pkg/bin/codex-acp.js" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json"; then
  echo "codex-acp $version is installed in $dir"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "@zed-industries/codex-acp@$version"
echo "codex-acp $version installed in $dir"
