#!/bin/sh
# sleep.sh SECONDS: a slow hook; it exits 0 with no output after SECONDS.
cat >/dev/null
sleep "$1"
