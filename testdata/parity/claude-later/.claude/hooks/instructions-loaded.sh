#!/bin/sh
# InstructionsLoaded: audit which instructions were loaded.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/InstructionsLoaded.json"
field() { printf '%s' "$input" | jq -r "$1"; }
printf '%s %s\n' "$(field .memory_type)" "$(field .file_path)" >> "$CLAUDE_PROJECT_DIR/instructions.log"
