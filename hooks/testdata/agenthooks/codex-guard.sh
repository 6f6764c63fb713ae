#!/bin/sh
# A Codex hook: Codex's stdin (apply_patch for file edits), Claude Code's answer shape.
input=$(cat)
printf '%s\n' "$input" | jq -c . >> runs-codex.jsonl
case "$(printf '%s' "$input" | jq -r '.tool_input.command // empty')" in
  *"rm -rf"*|*"Add File: secrets"*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
    permissionDecisionReason: "codex guard: refused"}}' ;;
esac
