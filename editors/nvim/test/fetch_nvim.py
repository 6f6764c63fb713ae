#!/usr/bin/env python3
"""Fetches the Neovim of Debian unstable (0.11 or newer) into a directory, to
test the plugin's vim.lsp.config / vim.lsp.enable path on a machine whose own
Neovim is Debian stable's 0.7.2.

Usage: fetch_nvim.py DEST

It reads unstable's package index from deb.debian.org, takes neovim and
everything it depends on (glibc included: unstable's is newer than the host's),
unpacks them with dpkg-deb under DEST/root and writes DEST/nvim, a wrapper that
runs nvim through that glibc's own loader. Nothing is installed on the system
and the host's programs (sh, jq, the server) keep their own libraries.
Prints the Neovim version on success; exits 2 when the archive cannot be
reached or a package cannot be downloaded, so the caller can tell "offline"
from "broken".
"""

import lzma
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

MIRROR = "http://deb.debian.org/debian"
SUITE = "sid"
ARCH = "amd64"


def fetch(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def parse_index(text):
    """Package name -> its fields (the first stanza of each name wins)."""
    pkgs = {}
    for stanza in text.split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") or ": " not in line:
                continue
            k, v = line.split(": ", 1)
            fields[k] = v
        if "Package" in fields:
            pkgs.setdefault(fields["Package"], fields)
    return pkgs


def closure(pkgs, root):
    """root and every package it depends on (first alternative of each)."""
    seen, todo = [], [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in pkgs:
            raise SystemExit(f"{name} is not in {SUITE}'s index")
        seen.append(name)
        deps = ", ".join(pkgs[name].get(k, "") for k in ("Pre-Depends", "Depends"))
        for dep in deps.split(","):
            first = dep.split("|")[0].strip()
            if first:
                todo.append(re.split(r"[ (:]", first)[0])
    return seen


WRAPPER = """#!/bin/sh
# Neovim {version} from Debian {suite}, run through its own glibc (see fetch_nvim.py).
r='{root}'
L="$r/usr/lib/x86_64-linux-gnu"
VIMRUNTIME="$r/usr/share/nvim/runtime" exec "$L/ld-linux-x86-64.so.2" --library-path "$L" "$r/usr/bin/nvim" "$@"
"""


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    dest = os.path.abspath(sys.argv[1])
    root = os.path.join(dest, "root")
    try:
        index = lzma.decompress(fetch(f"{MIRROR}/dists/{SUITE}/main/binary-{ARCH}/Packages.xz")).decode()
    except OSError as e:
        print(f"cannot reach {MIRROR}: {e}", file=sys.stderr)
        sys.exit(2)
    pkgs = parse_index(index)
    version = pkgs["neovim"]["Version"]
    os.makedirs(root, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in closure(pkgs, "neovim"):
            deb = os.path.join(tmp, name + ".deb")
            try:
                data = fetch(f"{MIRROR}/{pkgs[name]['Filename']}")
            except OSError as e:
                # The index and the pool can disagree for a while when the mirror updates.
                print(f"cannot download {name} from {MIRROR}: {e}", file=sys.stderr)
                sys.exit(2)
            with open(deb, "wb") as f:
                f.write(data)
            subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    wrapper = os.path.join(dest, "nvim")
    with open(wrapper, "w") as f:
        f.write(WRAPPER.format(version=version, suite=SUITE, root=root))
    os.chmod(wrapper, 0o755)
    out = subprocess.run([wrapper, "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True)
    print(out.stdout.splitlines()[0])


if __name__ == "__main__":
    main()
