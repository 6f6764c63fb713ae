#!/bin/sh
# PermissionDenied: the model may retry read-only commands.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/PermissionDenied.json"
field() { printf '%s' "$input" | jq -r "$1"; }
case "$(field .tool_input.command)" in
  "npm test"*|ls*) jq -n '{hookSpecificOutput: {hookEventName: "PermissionDenied", retry: true}}' ;;
esac
