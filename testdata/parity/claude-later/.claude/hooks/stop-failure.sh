#!/bin/sh
# StopFailure: log API failures.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/StopFailure.json"
field() { printf '%s' "$input" | jq -r "$1"; }
printf '%s: %s\n' "$(field .error)" "$(field .error_details)" >> "$CLAUDE_PROJECT_DIR/failures.log"
