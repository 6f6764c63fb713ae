#!/bin/sh
# PostToolUse (Write|Edit): ask Claude to fix files that still have TODO markers.
input=$(cat)
path=$(printf '%s' "$input" | jq -r '.tool_input.file_path')
content=$(printf '%s' "$input" | jq -r '.tool_input.content // empty')
case "$content" in
  *TODO*) jq -n --arg p "$path" '{decision: "block", reason: ($p + " still has a TODO; finish it")}' ;;
esac
