#!/bin/sh
# TaskCreated: task subjects start with a ticket number.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/TaskCreated.json"
field() { printf '%s' "$input" | jq -r "$1"; }
case "$(field .task_subject)" in
  "[TICKET-"*) exit 0 ;;
esac
echo "Task subject must start with a ticket number, e.g. '[TICKET-123] Add feature'" >&2
exit 2
