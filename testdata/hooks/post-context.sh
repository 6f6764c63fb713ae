#!/bin/sh
# PostToolUse: adds context about the tool's result (hookSpecificOutput.additionalContext).
tool=$(jq -r '.tool_name')
jq -n --arg t "$tool" '{hookSpecificOutput: {hookEventName: "PostToolUse",
  additionalContext: ("Reminder after " + $t + ": run the tests before you finish.")}}'
