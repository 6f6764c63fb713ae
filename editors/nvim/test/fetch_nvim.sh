#!/bin/sh
# Fetches the Neovim of Debian unstable (0.11 or newer) into DEST, to test the plugin's vim.lsp.config /
# vim.lsp.enable path on a machine whose own Neovim is Debian stable's 0.7.2. Nothing is installed.
#
# Usage: fetch_nvim.sh DEST
#
# apt does the work, by package name, with a configuration of its own under DEST/apt: the same Debian archive
# the machine's apt already uses (asked of apt-get indextargets, so no host is written here), suite unstable.
# apt-cache lists neovim's dependencies (glibc included: unstable's is newer than the host's), apt-get
# download fetches them, dpkg-deb unpacks them under DEST/root, and DEST/nvim runs nvim through that glibc's
# own loader, so the host's programs (sh, jq, the server) keep their own libraries.
# Prints the Neovim version; exits 2 when the archive cannot be reached, so the caller can tell "offline"
# from "broken".
set -eu
[ $# -eq 1 ] || { echo "usage: fetch_nvim.sh DEST" >&2; exit 64; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
root=$dest/root
aptdir=$dest/apt

. /etc/os-release
archive=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
  awk -v rel="$VERSION_CODENAME" '$2 == rel { print $1; exit }')
[ -n "$archive" ] || { echo "the machine's apt has no Debian $VERSION_CODENAME archive to take unstable from" >&2; exit 2; }

mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/parts" "$aptdir/prefs" "$root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive unstable main" > "$aptdir/sources.list"
apt_opts="-o Dir::Etc::SourceList=$aptdir/sources.list -o Dir::Etc::SourceParts=$aptdir/parts
  -o Dir::Etc::PreferencesParts=$aptdir/prefs -o Dir::State::Lists=$aptdir/lists -o Dir::Cache=$aptdir/cache
  -o Dir::State::status=/dev/null -o APT::Architecture=amd64 -o APT::Architectures=amd64"

# shellcheck disable=SC2086 # apt_opts is a list of words
if ! apt-get $apt_opts -qq update; then
  echo "cannot reach Debian unstable through $archive" >&2
  exit 2
fi
# shellcheck disable=SC2086
pkgs=$(apt-cache $apt_opts depends --recurse --important --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances neovim | grep -v '^ ' | grep -v '^<' | sort -u)
version=$(apt-cache $apt_opts show neovim | awk '/^Version:/ { print $2; exit }')

tmp=$(mktemp -d)
chmod 755 "$tmp" # apt downloads as its own user, _apt
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
(cd "$tmp" && apt-get $apt_opts -qq download $pkgs) || { echo "cannot download neovim's packages" >&2; exit 2; }
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$root"; done

cat > "$dest/nvim" <<EOF
#!/bin/sh
# Neovim $version from Debian unstable, run through its own glibc (see fetch_nvim.sh).
r='$root'
L="\$r/usr/lib/x86_64-linux-gnu"
VIMRUNTIME="\$r/usr/share/nvim/runtime" exec "\$L/ld-linux-x86-64.so.2" --library-path "\$L" "\$r/usr/bin/nvim" "\$@"
EOF
chmod 755 "$dest/nvim"
"$dest/nvim" --version </dev/null | head -1
