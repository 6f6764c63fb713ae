#!/bin/sh
# PostToolBatch: say which tools ran together.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/PostToolBatch.json"
field() { printf '%s' "$input" | jq -r "$1"; }
printf '%s' "$input" | jq '{hookSpecificOutput: {hookEventName: "PostToolBatch",
  additionalContext: ("\(.tool_calls | length) tool calls ran: " + ([.tool_calls[].tool_name] | join(", ")))}}'
