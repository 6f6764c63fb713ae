#!/bin/sh
# A Gemini CLI hook: reads Gemini CLI's stdin, answers in Gemini CLI's shape.
input=$(cat)
printf '%s\n' "$input" | jq -c 'del(.timestamp) + {has_timestamp: (.timestamp | type == "string")}' >> "$GEMINI_PROJECT_DIR/runs-gemini.jsonl"
case "$(printf '%s' "$input" | jq -r '.tool_input.command // empty')" in
  *"rm -rf"*) jq -n '{decision: "deny", reason: "gemini guard: no rm -rf"}' ;;
  *) jq -n '{decision: "allow"}' ;;
esac
