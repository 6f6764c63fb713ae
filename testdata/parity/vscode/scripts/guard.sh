#!/bin/sh
# PreToolUse: deny commands with a blocked word ($BLOCKED_WORDS, a | list).
command=$(jq -r '.tool_input.command // empty')
if printf '%s' "$command" | grep -Eq "$BLOCKED_WORDS"; then
  jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
    permissionDecisionReason: "Destructive command blocked by policy"}}'
fi
