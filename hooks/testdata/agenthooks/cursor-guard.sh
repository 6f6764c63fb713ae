#!/bin/sh
# A Cursor hook: Cursor's stdin, Cursor's answer shape.
input=$(cat)
printf '%s\n' "$input" | jq -c . >> runs-cursor.jsonl
case "$(printf '%s' "$input" | jq -r '.command // empty')" in
  *"rm -rf"*) jq -n '{permission: "deny", user_message: "Blocked by the cursor guard", agent_message: "cursor guard: no rm -rf"}' ;;
  *) jq -n '{permission: "allow"}' ;;
esac
