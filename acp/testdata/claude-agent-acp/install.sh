#!/bin/sh
# Installs claude-agent-acp, the ACP adapter that runs Claude Code (its
# @anthropic-ai/claude-agent-sdk dependency carries the Claude Code CLI),
# into .cache/claude-agent-acp at the repository's root, for acp's
# TestClaudeAgentACP. Pinned: the test relies on this version's session
# modes and on Claude Code honouring ANTHROPIC_BASE_URL. Its package asks
# for node 22; it runs on node 20 (the warning is expected).
set -eu
version=0.101.0
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir="$root/.cache/claude-agent-acp"
pkg="$dir/node_modules/@agentclientprotocol/claude-agent-acp"
if [ -f "$pkg/dist/index.js" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json"; then
  echo "claude-agent-acp $version is installed in $dir"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "@agentclientprotocol/claude-agent-acp@$version"
echo "claude-agent-acp $version installed in $dir"
