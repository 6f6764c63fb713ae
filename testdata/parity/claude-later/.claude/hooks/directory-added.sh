#!/bin/sh
# DirectoryAdded: tell the model what was prepared.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/DirectoryAdded.json"
field() { printf '%s' "$input" | jq -r "$1"; }
jq -n --arg d "$(field .directory)" '{systemMessage: ("Installed the dependencies of " + $d)}'
