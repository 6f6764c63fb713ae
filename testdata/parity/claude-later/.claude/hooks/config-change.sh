#!/bin/sh
# ConfigChange: project settings change only through review.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/ConfigChange.json"
field() { printf '%s' "$input" | jq -r "$1"; }
jq -n --arg s "$(field .source)" '{decision: "block", reason: ("changes to " + $s + " need review")}'
