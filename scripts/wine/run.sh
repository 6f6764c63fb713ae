#!/bin/sh
# make test-wine: the Windows (windows/amd64) build's tests, run under Wine on Linux (README, "What is tested
# where"). It needs wine64 and gcc-mingw-w64-x86-64-win32 (Debian packages; .ci/run installs them); without them
# it prints SKIPPED and exits 0 — it never reports a pass it did not run.
#
# What it does:
#  1. builds the stand-in bcryptprimitives.dll from prng.c (Go 1.26 needs its ProcessPrng; Wine 8.0 lacks it),
#  2. makes a Wine prefix in $WINE_CACHE (default .cache/wine; the first start takes ~10 s) with the DLL in its
#     system32,
#  3. runs `GOOS=windows go test -exec scripts/wine/exec.sh` on the tests listed below, compiled with the
#     standard-library overlay of overlay.sh (Wine's unsupported-delete status; t.TempDir cleanup needs it),
#  4. runs the Linux-side test that drives the real wavehooks.exe serve under Wine (internal/wintest).
set -eu
cd "$(dirname "$0")/../.."
GO=${GO:-go}
WINE=${WINE:-$(command -v wine64 || echo /usr/lib/wine/wine64)}
if [ ! -x "$WINE" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  echo "SKIPPED: the Windows tests under Wine (wine64 or gcc-mingw-w64-x86-64-win32 is not installed; .ci/run installs them)"
  exit 0
fi
cache=${WINE_CACHE:-$PWD/.cache/wine}
export WINE WINEPREFIX="$cache/prefix" WINEDEBUG=-all
mkdir -p "$cache"
x86_64-w64-mingw32-gcc -shared -O2 -s -o "$cache/bcryptprimitives.dll" scripts/wine/prng.c scripts/wine/prng.def -lbcrypt
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "  wine: creating the prefix $WINEPREFIX"
  "$WINE" wineboot -i >/dev/null 2>&1 || true
fi
cp "$cache/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
# Wine runs at all (a prefix it cannot create, no display server needed for console programs): else SKIPPED.
if ! "$WINE" cmd /c exit 0 >/dev/null 2>&1; then
  echo "SKIPPED: the Windows tests under Wine (wine64 cannot start a program in $WINEPREFIX)"
  exit 0
fi
sh scripts/wine/overlay.sh "$cache/overlay" >"$cache/overlay.json"

# Each package with the tests that are meaningful under Wine (Unix-only tests carry their own build tags or
# skips): what each proves is in the README's "What is tested where".
run() {
  pkg=$1 tests=$2
  echo "  wine: $pkg: $tests"
  GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$GO" test -overlay "$cache/overlay.json" -exec "$PWD/scripts/wine/exec.sh" \
    -count=1 -timeout 5m -short -run "$tests" "$pkg"
}
run ./lsp '^TestFilePath'
run ./internal/settings '^(TestLintCallsAScriptNotExecutableOnlyWhenItCannotRun|TestAbsolutePatternsNameWindowsDrives)$'
run ./internal/proc '^(TestCmdExeGetsTheArgumentsAsWritten|TestARootedCwdStaysInTheProject)$'
run ./session '^(TestIncrementalSavesMatchAFullWrite|TestFailedSaveTakesTheChangeBack)$'
WAVEHOOKS_WINE_PREFIX="$WINEPREFIX" WINE="$WINE" "$GO" test -count=1 -timeout 5m ./internal/wintest
