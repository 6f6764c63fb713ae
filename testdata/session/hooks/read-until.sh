#!/bin/sh
# Reads the transcript (jq -s: the JSON file, or every jsonl line) again and
# again until the file named by $1 exists. Exits 2 with "torn" when one read
# does not parse: a half-written transcript.
t=$(jq -r .transcript_path)
touch "$1.started"
n=0
while [ ! -e "$1" ]; do
  if ! jq -e -s 'length > 0' "$t" >/dev/null 2>&1; then
    echo "torn transcript after $n good reads" >&2
    exit 2
  fi
  n=$((n+1))
done
echo "$n" >"$1.reads"
