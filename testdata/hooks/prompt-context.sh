#!/bin/sh
# UserPromptSubmit: adds the current branch-like context (exit 0 stdout becomes context).
prompt=$(jq -r '.prompt // empty')
[ -n "$prompt" ] || exit 0
echo "Project conventions: tabs for Go, 2 spaces for YAML. (prompt had ${#prompt} characters)"
