package session

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// Report is one event as a client reports it: the event with its own
// fields, and what the client said alongside them. It is passed to
// Session.Report whole, so that everything that reaches the hooks' stdin
// is in the call, none of it in a context value.
type Report struct {
	// Input is the event and its own fields, as the typed methods take
	// them: SessionStart's source, UserPromptSubmit's prompt, a tool
	// call's id, name, input (and response), SessionEnd's reason; any event
	// with every field it has (wave/runHooks).
	Input event.Input
	// Client is what the client gave with the event and the session does
	// not build itself: the agent's state (prompt id, permission mode,
	// effort), a tool's duration, and stdin fields of its own (Extra, with
	// their order). The event's own fields win over it, except
	// last_assistant_message, which the client knows best. The zero Input
	// says nothing.
	Client event.Input
	// Ask puts a PreToolUse "ask" to the user; nil denies.
	Ask AskFunc
}

// Report runs the event r reports, checking a tool call's fields as the
// typed wire methods name them (toolUseId, toolInput). The typed methods
// (SessionStart, PreToolUse, …) are Report for a client that said nothing
// more than the event's own fields.
func (s *Session) Report(ctx context.Context, r Report) (Outcome, error) {
	return s.report(ctx, r, flow.TypedToolCall)
}

// report runs r, naming a tool call's fields as f spells them.
func (s *Session) report(ctx context.Context, r Report, f flow.ToolCallFields) (Outcome, error) {
	in := r.Input
	switch in.Event {
	case event.PreToolUse, event.PostToolUse:
		var err error
		if in, err = checkToolEvent(f, in); err != nil {
			return Outcome{}, err
		}
	case event.SessionEnd:
		return s.end(ctx, r)
	default:
		if _, ok := event.Spec(in.Event); !ok {
			return Outcome{}, fmt.Errorf("unknown hook event %q", in.Event)
		}
	}
	return s.run(ctx, in, r.Client, r.Ask)
}

// agentState is what the session remembers of the agent's state between
// events, because the client may say it once: Claude Code's prompt_id
// stays the same from a prompt to the next one, and its permission mode
// and effort until they change. Guarded by Session.mu.
type agentState struct {
	promptID, permissionMode, effort string
}

// withClientInput merges into in what the client gave with the event, c
// (the event's own fields win; Report.Client), and what the session
// remembers; it takes s.mu.
func (s *Session) withClientInput(in, c event.Input) event.Input {
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
