#!/bin/sh
# Notification (permission_prompt|idle_prompt): log it where a desktop notifier would pick it up.
jq -r '"\(.notification_type): \(.title): \(.message)"' >> "$CLAUDE_PROJECT_DIR/notifications.log"
