#!/bin/sh
# Stop: block once so the agent runs the tests.
[ "$(jq -r '.stop_hook_active')" = "true" ] && exit 0
jq -n '{decision: "block", reason: "Run the tests before you stop."}'
