#!/bin/sh
# make test-dist: checks what `make dist` wrote, as a user who downloads it would:
#   - every artifact exists, and each server and hook (wavehooks-hook) is an executable of its platform's format (ELF,
#     Mach-O, PE) and CPU;
#   - SHA256SUMS lists exactly the artifacts and `sha256sum -c` passes;
#   - the linux servers and hooks run `version` / `--version` and report the commit they were built from (linux-arm64
#     through qemu-aarch64 when qemu-user is installed; the check says SKIPPED otherwise);
#   - each .vsix is for its platform (its manifest's TargetPlatform) and carries its server and hook in
#     extension/server/wavehooks[.exe] and wavehooks-hook[.exe], byte for byte the ones in dist/, executable (mode 755)
#     for linux and darwin.
# Usage: COMMIT=<full hash> scripts/dist_test.sh [DIST_DIR]     Prints one ok / not ok line per check.
set -eu
dist=${1:-$(cd "$(dirname "$0")/.." && pwd)/dist}
: "${COMMIT:?set COMMIT (make test-dist does)}"
failed=0 passed=0
ok() {
  passed=$((passed + 1))
  echo "ok - $*"
}
notok() {
  failed=$((failed + 1))
  echo "not ok - $*"
}

platforms="linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64"
targets="linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64"
want=""
commands="wavehooks wavehooks-hook"
for p in $platforms; do
  for cmd in $commands; do
    case $p in windows-*) want="$want $cmd-$p.exe" ;; *) want="$want $cmd-$p" ;; esac
  done
done
for t in $targets; do want="$want wavehooks-$t.vsix"; done

# Each server's executable format and CPU, read from its header (python3: no `file` on a fresh machine).
header() {
  python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read(4096)
if b[:4] == b'\x7fELF':
    print('ELF', {62: 'amd64', 183: 'arm64'}.get(struct.unpack_from('<H', b, 18)[0], '?'))
elif b[:4] == b'\xcf\xfa\xed\xfe':
    print('Mach-O', {0x01000007: 'amd64', 0x0100000c: 'arm64'}.get(struct.unpack_from('<I', b, 4)[0], '?'))
elif b[:2] == b'MZ':
    pe = struct.unpack_from('<I', b, 0x3c)[0]
    ok = b[pe:pe + 4] == b'PE\0\0'
    print('PE' if ok else '?', {0x8664: 'amd64', 0xaa64: 'arm64'}.get(struct.unpack_from('<H', b, pe + 4)[0], '?'))
else:
    print('unknown ?')
EOF
}

for f in $want; do
  if [ -s "$dist/$f" ]; then ok "$f exists"; else notok "$f is missing from $dist"; fi
done

for p in $platforms; do
  goos=${p%-*} goarch=${p#*-}
  for cmd in $commands; do
    f=$cmd-$p
    [ "$goos" = windows ] && f=$f.exe
    [ -s "$dist/$f" ] || continue
    case $goos in linux) format=ELF ;; darwin) format=Mach-O ;; windows) format=PE ;; esac
    got=$(header "$dist/$f")
    if [ "$got" = "$format $goarch" ]; then ok "$f: $format executable for $goarch"; else notok "$f: want $format for $goarch, the header says $got"; fi
  done
done

short=$(printf %.12s "$COMMIT")
run_version() { # run_version NAME COMMAND...
  name=$1
  shift
  if out=$("$@" version 2>&1) && case $out in "wavehooks "*"(commit $short"*"$name"*) true ;; *) false ;; esac then
    ok "the $name server runs: version says $out"
  else
    notok "the $name server: version: want \"wavehooks … (commit $short, … $name)\", got: $out"
  fi
}
# The hook says its version as the proxy asks it (acp/hookclient.go), with the commit it was built from.
run_hook_version() { # run_hook_version NAME COMMAND...
  name=$1
  shift
  if out=$("$@" --version 2>&1) && case $out in "wavehooks-hook "*"(commit $short"*) true ;; *) false ;; esac then
    ok "the $name hook runs: --version says $out"
  else
    notok "the $name hook: --version: want \"wavehooks-hook … (commit $short…)\", got: $out"
  fi
}
if [ "$(uname -m)" = x86_64 ]; then
  [ -x "$dist/wavehooks-linux-amd64" ] && run_version linux/amd64 "$dist/wavehooks-linux-amd64"
  [ -x "$dist/wavehooks-hook-linux-amd64" ] && run_hook_version linux/amd64 "$dist/wavehooks-hook-linux-amd64"
fi
for cmd in $commands; do
  f=$dist/$cmd-linux-arm64
  [ -s "$f" ] || continue
  check=run_version
  [ "$cmd" = wavehooks-hook ] && check=run_hook_version
  if [ "$(uname -m)" = aarch64 ]; then
    $check linux/arm64 "$f"
  elif command -v qemu-aarch64 >/dev/null; then
    $check linux/arm64 qemu-aarch64 "$f"
  else
    echo "SKIPPED: running $cmd-linux-arm64 (apt-get install -y qemu-user)"
  fi
done

# SHA256SUMS: exactly the artifacts, and they verify.
if [ -f "$dist/SHA256SUMS" ]; then
  listed=$(awk '{print $2}' "$dist/SHA256SUMS" | sed 's/^\*//' | sort | tr '\n' ' ')
  expected=$(for f in $want; do echo "$f"; done | sort | tr '\n' ' ')
  if [ "$listed" = "$expected" ]; then ok "SHA256SUMS lists the $(echo "$want" | wc -w) artifacts"; else notok "SHA256SUMS lists: $listed; want: $expected"; fi
  if out=$(cd "$dist" && sha256sum -c --quiet SHA256SUMS 2>&1); then ok "sha256sum -c SHA256SUMS"; else notok "sha256sum -c SHA256SUMS: $out"; fi
else
  notok "SHA256SUMS is missing"
fi

# Each package: its platform, and its server inside.
set -- $platforms
for t in $targets; do
  p=$1
  shift
  vsix=$dist/wavehooks-$t.vsix
  [ -s "$vsix" ] || continue
  exe=""
  case $t in win32-*) exe=.exe ;; esac
  if out=$(python3 - "$vsix" "$t" "$dist/wavehooks-$p$exe" "extension/server/wavehooks$exe" \
    "$dist/wavehooks-hook-$p$exe" "extension/server/wavehooks-hook$exe" <<'EOF'
import re, sys, zipfile
vsix, target = sys.argv[1:3]
binaries = dict(zip(sys.argv[4::2], sys.argv[3::2]))  # entry in the package: the file in dist/
z = zipfile.ZipFile(vsix)
names = set(z.namelist())
problems = []
for need in ['extension/package.json', 'extension/dist/extension.js', 'extension.vsixmanifest'] + sorted(binaries):
    if need not in names:
        problems.append('no ' + need)
servers = sorted(n for n in names if n.startswith('extension/server/'))
if servers != sorted(binaries):
    problems.append('extension/server/ holds %s, want only %s' % (servers, sorted(binaries)))
for entry, binary in sorted(binaries.items()):
    if entry not in names:
        continue
    if z.read(entry) != open(binary, 'rb').read():
        problems.append('%s differs from %s' % (entry, binary))
    mode = (z.getinfo(entry).external_attr >> 16) & 0o777
    if not target.startswith('win32') and mode != 0o755:
        problems.append('%s has mode %o, want 755' % (entry, mode))
m = re.search(r'TargetPlatform="([^"]*)"', z.read('extension.vsixmanifest').decode()) if 'extension.vsixmanifest' in names else None
if not m or m.group(1) != target:
    problems.append('TargetPlatform is %s, want %s' % (m and m.group(1), target))
print('; '.join(problems) if problems else ', '.join('%s (%d bytes)' % (e, z.getinfo(e).file_size) for e in sorted(binaries)))
sys.exit(1 if problems else 0)
EOF
  ); then
    ok "wavehooks-$t.vsix is for $t and carries $out"
  else
    notok "wavehooks-$t.vsix: $out"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
