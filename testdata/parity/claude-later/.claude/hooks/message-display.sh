#!/bin/sh
# MessageDisplay: show the text without markdown emphasis.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/MessageDisplay.json"
field() { printf '%s' "$input" | jq -r "$1"; }
printf '%s' "$input" | jq '{hookSpecificOutput: {hookEventName: "MessageDisplay", displayContent: (.delta | gsub("\\*\\*"; "") | gsub("`"; ""))}}'
