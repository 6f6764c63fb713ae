#!/bin/sh
# PostCompact: tell the user the summary was kept.
jq '{systemMessage: ("Compacted (" + .trigger + "); summary kept: " + .compact_summary)}'
