#!/bin/sh
# testdata/hooks/worktree-create.sh — WorktreeCreate: a plain directory as the worktree; stdout's last line is its path.
dir="$WAVE_PROJECT_DIR/.worktrees/$(jq -r .name)"
mkdir -p "$dir" >&2 && echo "$dir"
