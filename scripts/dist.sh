#!/bin/sh
# make dist: the release artifacts, with the Go toolchain and @vscode/vsce alone.
#   dist/wavehooks-<goos>-<goarch>[.exe]   the server for linux, darwin, windows × amd64, arm64 (CGO_ENABLED=0:
#                                           static, runs without a Go toolchain or a particular libc)
#   dist/wavehooks-hook-<goos>-<goarch>[.exe]  the ACP proxy's command hook for the same platforms (cmd/wavehooks-hook:
#                                           installed as wavehooks-hook[.exe] next to wavehooks, the proxy gives it to
#                                           agents such as codex-acp instead of starting all of wavehooks per tool call)
#   dist/wavehooks-<target>.vsix            the VS Code extension for linux-x64, linux-arm64, darwin-x64, darwin-arm64,
#                                           win32-x64, win32-arm64, each carrying its server in server/wavehooks[.exe]
#                                           and the hook beside it in server/wavehooks-hook[.exe]
#   dist/SHA256SUMS                         sha256sum of every artifact above (check with `sha256sum -c SHA256SUMS`)
#
# Usage: VERSION=... COMMIT=... scripts/dist.sh [PLATFORM...]   (the Makefile sets both)
#   PLATFORM is <goos>-<goarch>, e.g. linux-amd64; default: all six. SHA256SUMS covers what dist/ then holds.
# Never writes into editors/vscode: the extension is built in a copy under dist/.stage.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${DIST:-$root/dist}
: "${VERSION:?set VERSION (make dist does)}" "${COMMIT:?set COMMIT (make dist does)}"
GO=${GO:-go}
VSCE=${VSCE:-@vscode/vsce@3.9.2} # 3.x runs on Node 20; 4.x needs Node 22
platforms=${*:-linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64}

# VS Code's name for a Go platform (vsce package --target).
vscode_target() {
  case $1 in
  linux-amd64) echo linux-x64 ;;
  linux-arm64) echo linux-arm64 ;;
  darwin-amd64) echo darwin-x64 ;;
  darwin-arm64) echo darwin-arm64 ;;
  windows-amd64) echo win32-x64 ;;
  windows-arm64) echo win32-arm64 ;;
  *)
    echo "dist: unknown platform $1 (want <linux|darwin|windows>-<amd64|arm64>)" >&2
    return 1
    ;;
  esac
}
for p in $platforms; do vscode_target "$p" >/dev/null; done

mkdir -p "$out"
start=$(date +%s)

# 1. The server and its hook, once per platform.
for p in $platforms; do
  goos=${p%-*} goarch=${p#*-}
  exe=""
  [ "$goos" = windows ] && exe=.exe
  for cmd in wavehooks wavehooks-hook; do
    echo "  dist: $cmd-$p$exe"
    (cd "$root" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch $GO build -trimpath \
      -ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" -o "$out/$cmd-$p$exe" ./cmd/$cmd)
  done
done

# 2. The extension, built once in a copy of editors/vscode; vscode:prepublish is dropped from the copy's manifest
#    so that vsce does not rebuild it for every target.
stage=$out/.stage/vscode
rm -rf "$stage"
mkdir -p "$stage"
(cd "$root/editors/vscode" && tar --exclude=./node_modules --exclude=./dist --exclude=./out --exclude=./server \
  --exclude='./*.vsix' -cf - .) | (cd "$stage" && tar -xf -)
echo "  dist: building the extension (npm ci, npm run build)"
log=$out/.stage/npm.log
if ! (cd "$stage" && npm ci --no-audit --no-fund --loglevel=error && npm run build) >"$log" 2>&1; then
  tail -30 "$log"
  echo "dist: building the extension failed (full log: $log)" >&2
  exit 1
fi
node -e '
  const fs = require("fs"), f = process.argv[1], m = JSON.parse(fs.readFileSync(f, "utf8"));
  delete m.scripts["vscode:prepublish"];
  fs.writeFileSync(f, JSON.stringify(m, null, 2) + "\n");
' "$stage/package.json"

# 3. One package per platform, each with its own server and hook in server/.
for p in $platforms; do
  goos=${p%-*}
  target=$(vscode_target "$p")
  exe=""
  [ "$goos" = windows ] && exe=.exe
  rm -rf "$stage/server"
  mkdir -p "$stage/server"
  for cmd in wavehooks wavehooks-hook; do
    cp "$out/$cmd-$p$exe" "$stage/server/$cmd$exe"
    chmod 755 "$stage/server/$cmd$exe"
  done
  echo "  dist: wavehooks-$target.vsix"
  if ! (cd "$stage" && npx --yes "$VSCE" package --target "$target" --no-dependencies --skip-license \
    --out "$out/wavehooks-$target.vsix") >"$log" 2>&1; then
    tail -30 "$log"
    echo "dist: vsce package --target $target failed (full log: $log)" >&2
    exit 1
  fi
done

# 4. Checksums of everything dist/ holds.
(cd "$out" && rm -f SHA256SUMS && sha256sum wavehooks-* >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
echo "  dist: $(wc -l <"$out/SHA256SUMS") artifacts and SHA256SUMS in $out ($(($(date +%s) - start)) s)"
