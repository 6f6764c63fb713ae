#!/bin/sh
# PreModelSwitch and PostModelSwitch: the decision to give is in the file
# $WAVE_PROJECT_DIR/model-decision (PreModelSwitch); PostModelSwitch adds
# context. The stdin is recorded as $WAVE_PROJECT_DIR/<event>.json.
input=$(cat)
ev=$(printf '%s' "$input" | jq -r .hook_event_name)
printf '%s' "$input" > "$WAVE_PROJECT_DIR/$ev.json"
case "$ev" in
  PreModelSwitch)
    d=$(cat "$WAVE_PROJECT_DIR/model-decision" 2>/dev/null) || exit 0
    [ "$d" = exit2 ] && { echo "keep the current model" >&2; exit 2; }
    jq -n --arg d "$d" '{hookSpecificOutput: {hookEventName: "PreModelSwitch", permissionDecision: $d, permissionDecisionReason: ("model switch: " + $d)}}' ;;
  PostModelSwitch)
    jq -n '{hookSpecificOutput: {hookEventName: "PostModelSwitch", additionalContext: "The model changed: re-read CONTRIBUTING.md"}}' ;;
esac
