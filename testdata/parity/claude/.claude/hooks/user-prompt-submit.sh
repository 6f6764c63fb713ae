#!/bin/sh
# UserPromptSubmit: refuse prompts that contain a secret; otherwise add context (plain stdout).
prompt=$(jq -r '.prompt')
case "$prompt" in
  *password=*) echo "The prompt contains a password; it was not sent." >&2; exit 2 ;;
esac
echo "Current sprint: parser rewrite."
