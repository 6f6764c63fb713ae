#!/bin/sh
# Installs Qwen Code (npm @qwen-code/qwen-code, a Gemini CLI fork whose
# `qwen --acp` speaks ACP) into .cache/qwen-code at the repository's root,
# for acp's TestQwenCode, which points it at a fake OpenAI Chat Completions
# API on loopback. Pinned: the test relies on this version's settings keys,
# flags and approval modes. Its package asks for node 22; it runs on node 20
# (the engines warning is expected).
set -eu
version=0.24.4
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir="$root/.cache/qwen-code"
pkg="$dir/node_modules/@qwen-code/qwen-code"
if [ -f "$pkg/cli-entry.js" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json"; then
  echo "Qwen Code $version is installed in $dir"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "@qwen-code/qwen-code@$version"
echo "Qwen Code $version installed in $dir"
