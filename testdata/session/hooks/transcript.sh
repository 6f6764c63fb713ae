#!/bin/sh
# transcript.sh OUT: the jq pipeline of docs/hooks.md, "stdin". It reads the session file
# named by transcript_path and saves its messages to OUT, so a test can check
# what a hook saw while it ran.
jq -r '.transcript_path' | xargs cat | jq '.state.messages' > "$1"
