#!/bin/sh
# Writes a `go build -overlay` file (to stdout) that patches one function of the Go standard library for the
# Windows tests under Wine, and only for them: the copy of internal/syscall/windows/at_windows.go it points to
# is written to the directory given as $1.
#
# Why: os.RemoveAll on Windows deletes each file with NtSetInformationFile(FileDispositionInformationEx) and
# falls back to the older FileDispositionInfo when Windows answers that it does not know that class
# (STATUS_INVALID_INFO_CLASS, STATUS_INVALID_PARAMETER, STATUS_NOT_SUPPORTED). Wine 8.0 does not know it
# either but answers STATUS_NOT_IMPLEMENTED or STATUS_INVALID_DEVICE_REQUEST ("Invalid function"), which Go
# does not take as "unsupported", so every t.TempDir cleanup (and every os.RemoveAll) fails under Wine although
# it works on Windows. The patch adds those two statuses to the fallback's list; nothing else changes. It is
# Wine's gap being bridged, not a change to what the Windows build ships (release builds never use it).
set -eu
out=$1
src="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
grep -q 'STATUS_NOT_SUPPORTED:     // the file system' "$src" || {
  echo "scripts/wine/overlay.sh: $src no longer has the fallback list this patches; update the script" >&2
  exit 1
}
mkdir -p "$out"
sed 's|STATUS_NOT_SUPPORTED:     // the file system|NTStatus(0xC0000002), NTStatus(0xC0000010), /* Wine 8.0: NOT_IMPLEMENTED, INVALID_DEVICE_REQUEST */ STATUS_NOT_SUPPORTED: // the file system|' \
  "$src" >"$out/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$out/at_windows.go"
