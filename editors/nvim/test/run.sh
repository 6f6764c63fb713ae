#!/usr/bin/env bash
# Headless Neovim test of the wavehooks plugin against the real server.
# Usage: WAVEHOOKS_BIN=/path/to/wavehooks editors/nvim/test/run.sh   (default: bin/wavehooks of this checkout)
# Builds nothing. Prints "N passed, M failed" last and exits non-zero on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="${WAVEHOOKS_BIN:-$repo/bin/wavehooks}"
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "no wavehooks binary at $bin: build it (go build -o bin/wavehooks ./cmd/wavehooks) or set WAVEHOOKS_BIN" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
nvim="${NVIM:-nvim}"
for tool in "$nvim" jq; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool is not installed (apt-get install -y neovim jq)" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
done
tmp="$(mktemp -d)"
tmp="$(cd "$tmp" && pwd -P)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{config,data,state,cache}
out="$tmp/output.txt"
status=0
# stdin from /dev/null (never closed: newer Neovims abort at exit without it).
XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache" \
  HOME="$tmp" WAVE_HOME="$tmp/unused-wave-home" \
  WAVEHOOKS_BIN="$bin" WAVEHOOKS_PLUGIN="$here" WAVEHOOKS_TEST_TMP="$tmp" WAVEHOOKS_TEST_OUT="$out" \
  timeout 60 "$nvim" --headless -u NONE -i NONE -n -c "luafile $here/test/spec.lua" -c "cquit 3" </dev/null >"$tmp/nvim.log" 2>&1 || status=$?
if [ ! -s "$out" ] || [ "$status" -ne 0 ]; then
  echo "--- nvim output (exit $status) ---"
  cat "$tmp/nvim.log"
  echo; echo "--- test output ---"
fi
cat "$out" 2>/dev/null || true
if ! tail -n 1 "$out" 2>/dev/null | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
  [ "$status" -ne 0 ] || status=1
  echo "0 passed, 1 failed"
fi
exit "$status"
