#!/bin/sh
# WorktreeCreate: a plain directory as the worktree, its path on stdout.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/WorktreeCreate.json"
field() { printf '%s' "$input" | jq -r "$1"; }
dir="$CLAUDE_PROJECT_DIR/.worktrees/$(field .name)"
mkdir -p "$dir" >&2
echo "created $dir" >&2
echo "$dir"
