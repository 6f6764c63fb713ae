#!/bin/sh
# TaskCompleted: work in progress is not complete.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/TaskCompleted.json"
field() { printf '%s' "$input" | jq -r "$1"; }
case "$(field .task_subject)" in
  *WIP*) echo "$(field .task_id) is still WIP: finish it first" >&2; exit 2 ;;
esac
