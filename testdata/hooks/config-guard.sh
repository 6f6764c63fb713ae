#!/bin/sh
# testdata/hooks/config-guard.sh — ConfigChange: while .wave/locked exists, a settings change waits for a review.
input=$(cat)
printf '%s\n' "$input" >> "$WAVE_PROJECT_DIR/config-changes.log"   # an audit trail of every change
if [ -f "$WAVE_PROJECT_DIR/.wave/locked" ]; then
  echo "$(printf '%s' "$input" | jq -r .file_path) changed while the settings are locked; review it first" >&2
  exit 2
fi
exit 0
