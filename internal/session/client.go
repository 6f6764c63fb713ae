package session

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/event"
)

// clientInputKey carries what the client said with an event.
type clientInputKey struct{}

// WithClientInput returns ctx carrying fields the client gave with the
// event about to be fired: the agent's state (prompt id, permission mode,
// effort), a tool's duration, and for wave/runHooks everything it sent
// (Extra, the key order). The session's event methods build the event's own
// fields; these fill in the rest of the hooks' stdin.
func WithClientInput(ctx context.Context, in event.Input) context.Context {
	return context.WithValue(ctx, clientInputKey{}, in)
}

// agentState is what the session remembers of the agent's state between
// events, because the client may say it once: Claude Code's prompt_id
// stays the same from a prompt to the next one, and its permission mode
// and effort until they change. Guarded by Session.mu.
type agentState struct {
	promptID, permissionMode, effort string
}

// withClientInput merges into in what the client gave with the event (the
// event's own fields win) and what the session remembers; it takes s.mu.
func (s *Session) withClientInput(ctx context.Context, in event.Input) event.Input {
	if c, ok := ctx.Value(clientInputKey{}).(event.Input); ok {
		in.PromptID = cmp.Or(in.PromptID, c.PromptID)
		in.PermissionMode = cmp.Or(in.PermissionMode, c.PermissionMode)
		in.Effort = cmp.Or(in.Effort, c.Effort)
		in.LastAssistantMessage = cmp.Or(c.LastAssistantMessage, in.LastAssistantMessage) // the client knows its last message best
		if in.DurationMs == nil {
			in.DurationMs = c.DurationMs
		}
		if in.Extra == nil {
			in.Extra = c.Extra
		}
		if in.Order == nil {
			in.Order = c.Order
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if (in.Event == event.PostToolUse || in.Event == event.PostToolUseFailure) && in.ToolUseID != "" {
		if d := s.tools.take(in.ToolUseID, time.Now()); in.DurationMs == nil {
			in.DurationMs = d // the client did not say: since PreToolUse let the call run
		}
	}
	st := &s.agent
	switch {
	case in.PromptID != "":
		st.promptID = in.PromptID
	case in.Event == event.UserPromptSubmit:
		st.promptID = "" // a new prompt: the last one's id no longer applies
	default:
		in.PromptID = st.promptID
	}
	if in.PermissionMode != "" {
		st.permissionMode = in.PermissionMode
	} else {
		in.PermissionMode = st.permissionMode
	}
	if level := in.EffortLevel(); level != "" {
		st.effort = level
	} else {
		in.Effort = st.effort
	}
	return in
}

// lastAssistantText is the text of the conversation's last assistant
// message, its text blocks joined by newlines, as Claude Code gives Stop
// hooks in last_assistant_message; "" when there is none. The caller holds s.mu.
func (c *conversation) lastAssistantText() string {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if c.msgs[i].Role != RoleAssistant {
			continue
		}
		var texts []string
		for _, b := range c.msgs[i].Blocks {
			if b.Type == BlockText {
				texts = append(texts, b.Content)
			}
		}
		return strings.TrimSpace(strings.Join(texts, "\n"))
	}
	return ""
}
