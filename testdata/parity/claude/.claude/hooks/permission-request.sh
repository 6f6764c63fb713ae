#!/bin/sh
# PermissionRequest (Bash): approve the test suite on the user's behalf, in CI mode.
command=$(jq -r '.tool_input.command // empty')
[ "$command" = "npm test" ] || exit 0
jq -n '{hookSpecificOutput: {hookEventName: "PermissionRequest",
  decision: {behavior: "allow", updatedInput: {command: "npm test -- --ci"}}}}'
