#!/bin/sh
# PostToolUseFailure (Bash): give Claude a hint when the build failed (not when the user interrupted).
input=$(cat)
[ "$(printf '%s' "$input" | jq -r '.is_interrupt')" = "false" ] || exit 0
error=$(printf '%s' "$input" | jq -r '.error')
jq -n --arg e "$error" '{hookSpecificOutput: {hookEventName: "PostToolUseFailure",
  additionalContext: ("The command failed (" + $e + "). Run make deps first.")}}'
