#!/bin/sh
# The `go test -exec` wrapper for the Windows tests under Wine (scripts/wine/run.sh sets WINEPREFIX, with the
# stand-in bcryptprimitives.dll in it, and WINE): runs a windows/amd64 test binary, or any .exe, under wine64
# with Wine's own messages off.
set -eu
: "${WINEPREFIX:?scripts/wine/exec.sh runs from scripts/wine/run.sh, which sets WINEPREFIX}"
export WINEPREFIX WINEDEBUG=-all
exec "${WINE:-/usr/lib/wine/wine64}" "$@"
