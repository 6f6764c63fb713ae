#!/bin/sh
# PreToolUse: denies Bash commands that delete files recursively (exit 2, reason on stderr).
cmd=$(jq -r '.tool_input.command // empty')
case "$cmd" in
  *"rm -rf"*|*"rm -fr"*) echo "Refusing to run '$cmd': recursive delete is blocked by policy" >&2; exit 2 ;;
esac
exit 0
