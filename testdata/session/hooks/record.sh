#!/bin/sh
# record.sh OUT [CODE [STDERR]]: appends its stdin (one JSON line) to OUT,
# then exits with CODE (default 0), printing STDERR.
cat >> "$1"
[ -n "$3" ] && printf '%s\n' "$3" >&2
exit "${2:-0}"
