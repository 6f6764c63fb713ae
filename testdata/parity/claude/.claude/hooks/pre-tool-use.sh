#!/bin/sh
# PreToolUse (Bash): block recursive deletes. Exit 2: stderr is the reason Claude sees.
command=$(jq -r '.tool_input.command // empty')
case "$command" in
  *"rm -rf"*) echo "Blocked: '$command' deletes recursively" >&2; exit 2 ;;
esac
exit 0
