#!/bin/sh
# Sleeps far past any sane timeout, with a grandchild that would outlive a naive kill.
jq -r '.hook_event_name' > /dev/null
sh -c 'sleep 300' &
echo $! > "$WAVE_PROJECT_DIR/grandchild.pid"
echo $$ > "$WAVE_PROJECT_DIR/child.pid"
sleep 300
