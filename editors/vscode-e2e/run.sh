#!/bin/sh
# make e2e-vscode: the packaged extension (wavehooks.vsix) in code-server 4.100.3 (VS Code 1.100.3 in the
# browser), driven through its web UI by playwright-core with Debian's chromium. See README.md.
#   WAVEHOOKS_BIN  the server binary (default: ../../bin/wavehooks, built by `make build`)
#   CHROMIUM       the browser (default: chromium on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${WAVEHOOKS_BIN:-$root/bin/wavehooks}
chromium=${CHROMIUM:-$(command -v chromium || true)}

missing=""
[ -n "$chromium" ] || missing="$missing chromium"
command -v rg >/dev/null || missing="$missing ripgrep"
[ -f /usr/include/gssapi/gssapi.h ] || missing="$missing libkrb5-dev"
{ command -v g++ >/dev/null && command -v make >/dev/null; } || missing="$missing build-essential"
command -v python3 >/dev/null || missing="$missing python3"
if [ -n "$missing" ]; then
  echo "SKIPPED: VS Code end-to-end test (code-server): needs apt-get install -y$missing"
  exit 0
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" != 20 ]; then
  echo "SKIPPED: VS Code end-to-end test: code-server 4.100.3 runs only on Node 20 (this is Node $node_major)"
  exit 0
fi
if [ ! -x "$bin" ]; then
  echo "e2e: no server binary at $bin (run make build, or set WAVEHOOKS_BIN)"
  exit 1
fi

start=$(date +%s)
sh "$here/setup.sh"

# Package the extension from a copy of editors/vscode, so that this test never writes into that directory.
echo "  e2e: packaging wavehooks.vsix from a copy of editors/vscode, and the test agent"
work=$here/.work
rm -rf "$work/extension"
mkdir -p "$work/extension"
(cd "$root/editors/vscode" && tar --exclude=./node_modules --exclude=./dist --exclude=./out --exclude='./*.vsix' -cf - .) |
  (cd "$work/extension" && tar -xf -)
# The test agent (agent/: package.json + extension.js, no build) is packaged the same way, meanwhile: code-server
# installs extensions from .vsix files only (a folder copied into the extensions dir is not picked up).
rm -rf "$work/agent" "$work/test-agent.vsix"
cp -R "$here/agent" "$work/agent"
(cd "$work/agent" && npx --yes @vscode/vsce@3.9.2 package --no-dependencies --skip-license --allow-missing-repository \
  --out "$work/test-agent.vsix") >"$work/package-agent.log" 2>&1 &
agent_pid=$!
if ! (cd "$work/extension" && npm ci --no-audit --no-fund --loglevel=error && npm run package) >"$work/package.log" 2>&1; then
  wait "$agent_pid" || true
  tail -30 "$work/package.log"
  echo "e2e: packaging the extension failed (full log: $work/package.log)"
  exit 1
fi
if ! wait "$agent_pid"; then
  tail -30 "$work/package-agent.log"
  echo "e2e: packaging the test agent failed (full log: $work/package-agent.log)"
  exit 1
fi

echo "  e2e: setup took $(($(date +%s) - start)) s"
node "$here/run.mjs" --vsix "$work/extension/wavehooks.vsix" --agent "$work/test-agent.vsix" --server "$bin" --chromium "$chromium"
