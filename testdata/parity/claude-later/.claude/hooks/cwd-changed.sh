#!/bin/sh
# CwdChanged: watch the new directory's .envrc.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/CwdChanged.json"
field() { printf '%s' "$input" | jq -r "$1"; }
jq -n --arg d "$(field .new_cwd)" '{hookSpecificOutput: {hookEventName: "CwdChanged", watchPaths: [($d + "/.envrc")]}}'
