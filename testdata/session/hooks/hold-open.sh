#!/bin/sh
# Opens the transcript when it starts and keeps it open until the file
# named by $1 exists; then writes what it reads through that descriptor to
# $1.held, and what the file held when it was opened to $1.opened. A
# transcript written in place while the hook runs makes the two differ.
t=$(jq -r .transcript_path)
exec 3<"$t"
cat "$t" >"$1.opened"
touch "$1.started"
while [ ! -e "$1" ]; do sleep 0.01; done
cat <&3 >"$1.held"
