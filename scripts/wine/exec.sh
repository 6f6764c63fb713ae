#!/bin/sh
# The `go test -exec` wrapper for the Windows tests under Wine (scripts/wine/run.sh sets WINEPREFIX and
# WINE): runs a windows/amd64 test binary (or any .exe) under wine64. It sets WAVEHOOKS_WINE=1 for the
# program, which the tests read (internal/wintest) to know that they run under Wine and not on Windows:
# Wine 8.0 cannot remove a directory Go's os.RemoveAll removes on Windows, and its powershell.exe is a stub.
set -eu
: "${WINEPREFIX:?scripts/wine/exec.sh runs from scripts/wine/run.sh, which sets WINEPREFIX}"
export WINEPREFIX WINEDEBUG=-all WAVEHOOKS_WINE=1
exec "${WINE:-/usr/lib/wine/wine64}" "$@"
