#!/bin/sh
# SubagentStop (Explore): the subagent must report what it read, once.
[ "$(jq -r '.stop_hook_active')" = "true" ] && exit 0
jq -n '{decision: "block", reason: "List the files you read before you stop."}'
