#!/bin/sh
# PreToolUse: asks the user before a Write outside src/ (JSON permissionDecision "ask").
path=$(jq -r '.tool_input.file_path // empty')
case "$path" in
  */src/*) exit 0 ;;
esac
jq -n --arg p "$path" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask",
  permissionDecisionReason: ("Write to " + $p + " is outside src/")}}'
