#!/bin/sh
# PreCompact (auto): no automatic compaction while notes are unsaved; exit 2 blocks it.
trigger=$(jq -r '.trigger')
[ -e "$CLAUDE_PROJECT_DIR/NOTES.unsaved" ] || exit 0
echo "$trigger compaction blocked: save NOTES.unsaved first" >&2
exit 2
