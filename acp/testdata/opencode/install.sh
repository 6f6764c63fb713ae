#!/bin/sh
# Installs opencode (npm opencode-ai, whose `opencode acp` speaks ACP) into
# .cache/opencode at the repository's root, for acp's TestOpenCode, which
# points it at a fake OpenAI chat-completions API on loopback. opencode is a
# native binary shipped in per-platform npm packages (opencode-linux-x64, …,
# optional dependencies of opencode-ai); opencode-ai's postinstall copies the
# one for this machine to bin/opencode.exe, from node_modules or, failing
# that, by `npm install` of that package by name: nothing but the registry.
# Pinned: the test relies on this version's config keys and session modes.
set -eu
version=1.18.33
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir="$root/.cache/opencode"
pkg="$dir/node_modules/opencode-ai"
if [ -x "$pkg/bin/opencode.exe" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json" &&
  "$pkg/bin/opencode.exe" --version >/dev/null 2>&1; then
  echo "opencode $version is installed in $dir"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "opencode-ai@$version"
"$pkg/bin/opencode.exe" --version >/dev/null
echo "opencode $version installed in $dir"
