#!/bin/sh
# Installs the Claude Code CLI the conformance suite uses as its oracle,
# pinned, each version into a cache directory of its own,
# .cache/claude-code-VERSION (gitignored), so that the suite can run against
# the default (2.1.332) or an earlier release (CLAUDE_CODE_VERSION=2.1.330)
# without reinstalling. Both ship a native binary, so Node 20's npm installs
# them despite the package's engines field (an unpinned install on Node 20
# resolves to an older release). Idempotent: an install of the version
# already there is kept. Exits non-zero, with npm's message, when the package
# cannot be installed (no registry, no npm). Keep the default in step with
# ClaudeVersion in conformance/claude.go.
set -eu
version="${CLAUDE_CODE_VERSION:-2.1.332}"
case "$version" in
*[!0-9.]* | "") echo "CLAUDE_CODE_VERSION must be a release number such as 2.1.330, not \"$version\"" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="${CLAUDE_CODE_DIR:-$root/.cache/claude-code-$version}"
pkg="$dir/node_modules/@anthropic-ai/claude-code/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
	exit 0
fi
command -v npm >/dev/null || { echo "npm is not installed" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
	--engine-strict=false "@anthropic-ai/claude-code@$version"
