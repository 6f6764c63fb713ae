#!/bin/sh
# ElicitationResult: never send root as the user name.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/ElicitationResult.json"
field() { printf '%s' "$input" | jq -r "$1"; }
[ "$(field .content.username)" = root ] && { echo "no root logins" >&2; exit 2; }
exit 0
