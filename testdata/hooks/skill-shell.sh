#!/bin/sh
# PreSkillShellCommand: answers by the first word of the skill's command, so
# one hook shows every answer: deny, ask, defer, allow, a rewrite, a
# decision "block" and exit 2. It records its stdin in $WAVE_PROJECT_DIR.
input=$(cat)
printf '%s' "$input" > "$WAVE_PROJECT_DIR/skill-stdin.json"
cmd=$(printf '%s' "$input" | jq -r '.tool_input.command')
from=$(printf '%s' "$input" | jq -r '"/" + .command_name + " (" + .invoked_by + ")"')
answer() {
  jq -n --arg d "$1" --arg r "$2" '{hookSpecificOutput: {hookEventName: "PreSkillShellCommand", permissionDecision: $d, permissionDecisionReason: $r}}'
}
case "$cmd" in
  deny*) answer deny "no $cmd from $from" ;;
  ask*) answer ask "confirm $cmd" ;;
  defer*) answer defer "later" ;;
  allow*) answer allow "fine" ;;
  rewrite*) jq -n '{hookSpecificOutput: {hookEventName: "PreSkillShellCommand", permissionDecision: "allow", updatedInput: {command: "echo safe"}}}' ;;
  block*) jq -n --arg r "blocked $cmd" '{decision: "block", reason: $r}' ;;
  exit2*) echo "exit 2 refuses $cmd" >&2; exit 2 ;;
esac
exit 0
