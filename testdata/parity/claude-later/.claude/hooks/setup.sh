#!/bin/sh
# Setup: add what was installed to the context.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/Setup.json"
field() { printf '%s' "$input" | jq -r "$1"; }
printf 'export SETUP_TRIGGER=%s\n' "$(field .trigger)" >> "$CLAUDE_ENV_FILE"
jq -n --arg t "$(field .trigger)" '{hookSpecificOutput: {hookEventName: "Setup", additionalContext: ("Dependencies installed (" + $t + ").")}}'
