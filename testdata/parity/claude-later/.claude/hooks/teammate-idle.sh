#!/bin/sh
# TeammateIdle: no idling before the build artifact exists.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/TeammateIdle.json"
field() { printf '%s' "$input" | jq -r "$1"; }
if [ ! -f "$CLAUDE_PROJECT_DIR/dist/output.js" ]; then
  echo "Build artifact missing, $(field .teammate_name): run the build before stopping." >&2
  exit 2
fi
