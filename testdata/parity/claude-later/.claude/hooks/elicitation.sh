#!/bin/sh
# Elicitation: answer the login form for CI.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/Elicitation.json"
field() { printf '%s' "$input" | jq -r "$1"; }
if [ "$(field .mode)" = form ]; then
  jq -n '{hookSpecificOutput: {hookEventName: "Elicitation", action: "accept", content: {username: "ci-bot"}}}'
else
  jq -n '{hookSpecificOutput: {hookEventName: "Elicitation", action: "decline"}}'
fi
