#!/bin/sh
# Saves the hook's stdin, as jq reads it, to $WAVE_PROJECT_DIR/stdin-<event>.json.
jq -c '.' > "$WAVE_PROJECT_DIR/stdin.part" || exit 1
event=$(jq -r '.hook_event_name' "$WAVE_PROJECT_DIR/stdin.part")
mv "$WAVE_PROJECT_DIR/stdin.part" "$WAVE_PROJECT_DIR/stdin-$event.json"
