#!/bin/sh
# WorktreeRemove: remove the worktrees this project created.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/WorktreeRemove.json"
field() { printf '%s' "$input" | jq -r "$1"; }
dir=$(field .worktree_path)
case "$dir" in
  "$CLAUDE_PROJECT_DIR"/.worktrees/*) rm -rf "$dir" ;;
  *) echo "not ours: $dir" >&2; exit 1 ;;
esac
