#!/bin/sh
# UserPromptExpansion: /deploy prod needs an approval file.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/stdin" && printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/stdin/UserPromptExpansion.json"
field() { printf '%s' "$input" | jq -r "$1"; }
if [ "$(field .command_args)" = prod ] && [ ! -f "$CLAUDE_PROJECT_DIR/approvals/prod" ]; then
  echo "Deploying to prod needs approvals/prod" >&2
  exit 2
fi
echo "Deploy checklist: run the smoke tests after $(field .prompt)."
