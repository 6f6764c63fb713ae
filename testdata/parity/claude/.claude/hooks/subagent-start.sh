#!/bin/sh
# SubagentStart (Explore): tell the subagent its limits.
agent=$(jq -r '.agent_id')
jq -n --arg a "$agent" '{hookSpecificOutput: {hookEventName: "SubagentStart",
  additionalContext: ("You are " + $a + ": read files, change nothing.")}}'
