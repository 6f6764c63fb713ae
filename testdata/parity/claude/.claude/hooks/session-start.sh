#!/bin/sh
# SessionStart (startup): plain stdout becomes context.
source=$(jq -r '.source')
echo "Session $source on branch main; tests run with make test."
