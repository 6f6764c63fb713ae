#!/bin/sh
# respond.sh CODE [STDOUT] [STDERR]: a hook that reads its input like a real
# one (and checks it is JSON), prints STDOUT and STDERR, and exits with CODE.
input=$(cat)
printf '%s' "$input" | jq -e . >/dev/null || { echo "stdin is not JSON" >&2; exit 3; }
[ -n "$2" ] && printf '%s\n' "$2"
[ -n "$3" ] && printf '%s\n' "$3" >&2
exit "$1"
