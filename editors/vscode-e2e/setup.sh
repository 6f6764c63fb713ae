#!/bin/sh
# Installs this directory's node_modules (code-server + playwright-core) and finishes code-server's
# install by hand, because its own postinstall cannot run here:
#   - it downloads ripgrep from GitHub (@vscode/ripgrep's postinstall): we put Debian's /usr/bin/rg in its place;
#   - node-pty's install script runs `npx node-gyp`, which a `yes=false` npm config refuses: npm_config_yes=true;
#   - native modules (argon2, node-pty, kerberos, spdlog, ...) are compiled against /usr/include/node
#     (Debian's headers) instead of headers downloaded from nodejs.org.
# Skips all of it when node_modules was set up from the same package-lock.json and this script.
set -eu
cd "$(dirname "$0")"
here=$(pwd)

stamp=$here/node_modules/.wavehooks-e2e-ready
want=$(cat package-lock.json setup.sh | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

export npm_config_yes=true npm_config_audit=false npm_config_fund=false
if [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi
log=$here/.work/setup.log
mkdir -p .work
: >"$log"

step() { # step DESCRIPTION COMMAND...: runs COMMAND with its output in the log; on failure shows the log's end
  what=$1
  shift
  echo "  e2e setup: $what"
  if ! "$@" >>"$log" 2>&1; then
    tail -40 "$log"
    echo "e2e setup failed at: $what (full log: $log)"
    exit 1
  fi
}

step "npm ci (code-server 4.100.3, playwright-core; install scripts off)" npm ci --ignore-scripts
step "build argon2 (code-server's password hashing)" npm rebuild argon2

cd node_modules/code-server/lib/vscode
step "npm install in code-server's lib/vscode, as its postinstall does (install scripts off)" npm install --omit=dev --ignore-scripts
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
step "build VS Code's native modules (node-pty, spdlog, kerberos, ...)" npm rebuild
# What code-server's postinstall.sh does after its npm install:
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
cd extensions
step "npm install in code-server's built-in extensions, as its postinstall does" npm install --omit=dev
echo "$want" >"$stamp"
