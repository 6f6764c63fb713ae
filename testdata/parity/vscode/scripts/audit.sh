#!/bin/sh
# UserPromptSubmit and PreCompact: append an audit line with VS Code's common fields.
jq -c '{timestamp: (.timestamp | type), hookEventName, sessionId}' >> "$WAVE_PROJECT_DIR/audit.log"
