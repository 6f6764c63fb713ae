#!/bin/sh
# Installs Gemini CLI, the real ACP agent acp's tests drive offline
# (TestGeminiCLI), into .cache/gemini-cli at the repository's root.
# The version is pinned: the test relies on its --acp mode and on
# --fake-responses-non-strict, checked with this version.
set -eu
version=0.61.0
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir="$root/.cache/gemini-cli"
entry="$dir/node_modules/@google/gemini-cli/bundle/gemini.js"
if [ -f "$entry" ] && grep -q "\"version\": \"$version\"" "$dir/node_modules/@google/gemini-cli/package.json"; then
  echo "Gemini CLI $version is installed in $dir"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "@google/gemini-cli@$version"
echo "Gemini CLI $version installed in $dir"
