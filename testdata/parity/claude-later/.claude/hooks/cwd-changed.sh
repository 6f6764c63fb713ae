#!/bin/sh
# CwdChanged: watch the new directory's .envrc, and remember the directory
# for the agent's later commands, as direnv-style hooks do.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/CwdChanged.json"
field() { printf '%s' "$input" | jq -r "$1"; }
printf "export PROJECT_CWD='%s'\n" "$(field .new_cwd)" >> "$CLAUDE_ENV_FILE"
jq -n --arg d "$(field .new_cwd)" '{hookSpecificOutput: {hookEventName: "CwdChanged", watchPaths: [($d + "/.envrc")]}}'
