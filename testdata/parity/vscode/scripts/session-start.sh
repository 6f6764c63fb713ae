#!/bin/sh
# SessionStart: runs in scripts/ with TEAM set; adds context.
input=$(cat)
session=$(printf '%s' "$input" | jq -r '.sessionId')
jq -n --arg s "$session" --arg t "$TEAM" --arg d "$(basename "$(pwd)")" '{hookSpecificOutput: {hookEventName: "SessionStart",
  additionalContext: ("Session " + $s + " for team " + $t + " (hook ran in " + $d + "/)")}}'
