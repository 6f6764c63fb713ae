#!/bin/sh
# PostToolUse: pretend to format the file and tell the model.
file=$(jq -r '.tool_input.file_path // empty')
[ -n "$file" ] || exit 0
jq -n --arg f "$file" '{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: ("Formatted " + $f)}}'
