#!/bin/sh
# Stop: make Claude go on once to run the tests; stop_hook_active avoids a loop.
[ "$(jq -r '.stop_hook_active')" = "true" ] && exit 0
echo "Run the tests before you stop." >&2
exit 2
