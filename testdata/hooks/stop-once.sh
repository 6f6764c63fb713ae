#!/bin/sh
# Stop: blocks the first stop so the agent continues, then lets it stop (stop_hook_active).
active=$(jq -r '.stop_hook_active // false')
if [ "$active" = "true" ]; then exit 0; fi
echo "Before you stop: summarise what you changed." >&2
exit 2
