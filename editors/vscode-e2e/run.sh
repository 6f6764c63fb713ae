#!/bin/sh
# make e2e-vscode: the linux-x64 package of the extension (wavehooks-linux-x64.vsix, which carries the server, as
# `make dist` builds it) in code-server 4.100.3 (VS Code 1.100.3 in the browser), driven through its web UI by
# playwright-core with Debian's chromium, with no other wavehooks on PATH. See README.md.
#   CHROMIUM         the browser (default: chromium on PATH)
#   VERSION, COMMIT  what the packaged server reports (the Makefile sets them; default: from git)
#   E2E_ONLY         main (run.mjs) or repo-settings (repo-settings.mjs: a repository's .vscode/settings.json
#                    cannot choose the server, the wave home or trust); default: both, one after the other
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
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

start=$(date +%s)
sh "$here/setup.sh"

# The linux-x64 package as `make dist` builds it (scripts/dist.sh, into .work/dist: never into editors/vscode).
echo "  e2e: packaging wavehooks-linux-x64.vsix (scripts/dist.sh linux-amd64), and the test agent"
work=$here/.work
mkdir -p "$work"
# The test agent (agent/: package.json + extension.js, no build) is packaged the same way, meanwhile: code-server
# installs extensions from .vsix files only (a folder copied into the extensions dir is not picked up).
rm -rf "$work/agent" "$work/test-agent.vsix"
cp -R "$here/agent" "$work/agent"
(cd "$work/agent" && npx --yes @vscode/vsce@3.9.2 package --no-dependencies --skip-license --allow-missing-repository \
  --out "$work/test-agent.vsix") >"$work/package-agent.log" 2>&1 &
agent_pid=$!
export VERSION="${VERSION:-$(cd "$root" && git describe --tags --dirty 2>/dev/null || echo 0.1.0-dev)}"
export COMMIT="${COMMIT:-$(cd "$root" && git rev-parse HEAD 2>/dev/null || echo unknown)}"
rm -rf "$work/dist"
if ! DIST="$work/dist" sh "$root/scripts/dist.sh" linux-amd64 >"$work/package.log" 2>&1; then
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
only=${E2E_ONLY:-}
case "$only" in
'' | main | repo-settings) ;;
*)
  echo "e2e: E2E_ONLY must be main or repo-settings, not $only"
  exit 2
  ;;
esac
status=0
for case in main repo-settings; do
  [ -z "$only" ] || [ "$only" = "$case" ] || continue
  script=run.mjs
  [ "$case" = main ] || script=$case.mjs
  echo "  e2e: $script"
  node "$here/$script" --vsix "$work/dist/wavehooks-linux-x64.vsix" --agent "$work/test-agent.vsix" --chromium "$chromium" || status=1
done
exit $status
