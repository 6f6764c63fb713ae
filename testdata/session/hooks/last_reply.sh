#!/bin/sh
# last_reply.sh OUT: a Stop hook written the way docs/hooks.md teaches: it finds
# the transcript through transcript_path and saves the model's last reply
# (Method 2) to OUT.
INPUT=$(cat)
TRANSCRIPT_PATH=$(echo "$INPUT" | jq -r '.transcript_path // empty')
if [ -z "$TRANSCRIPT_PATH" ] || [ ! -f "$TRANSCRIPT_PATH" ]; then
    echo "Transcript not available" >&2
    exit 1
fi
RESPONSE=$(cat "$TRANSCRIPT_PATH" | \
    jq -r 'select(.role == "assistant") |
           if (.content | type) == "string" then .content
           elif (.content | type) == "array" then
               [.content[] | select(.type == "text") | .text] | join("\n")
           else empty end' | \
    tail -1)
echo "$RESPONSE" > "$1"
