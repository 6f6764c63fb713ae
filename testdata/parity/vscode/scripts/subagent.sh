#!/bin/sh
# SubagentStart: context for the subagent. SubagentStop: it must summarise first, once.
input=$(cat)
case "$(printf '%s' "$input" | jq -r '.hookEventName')" in
  SubagentStart) jq -n '{hookSpecificOutput: {hookEventName: "SubagentStart", additionalContext: "Only read files."}}' ;;
  SubagentStop)
    [ "$(printf '%s' "$input" | jq -r '.stop_hook_active')" = "true" ] && exit 0
    jq -n '{decision: "block", reason: "Summarise your findings first."}' ;;
esac
