#!/bin/sh
# FileChanged: remind to reload the environment.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/FileChanged.json"
field() { printf '%s' "$input" | jq -r "$1"; }
jq -n --arg f "$(basename "$(field .file_path)")" --arg e "$(field .event)" '{systemMessage: ($f + " " + $e + ": run direnv allow")}'
