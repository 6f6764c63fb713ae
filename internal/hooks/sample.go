package hooks

import (
	"context"
	"encoding/json"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// SampleInput is a plausible input for an event, for trying a hook out from
// the editor ("Run hook") without an agent: a Bash tool call, a prompt, a
// startup source, and so on.
func SampleInput(ev event.Event, sessionID, transcriptPath, cwd string) event.Input {
	in := event.Input{SessionID: sessionID, TranscriptPath: transcriptPath, Cwd: cwd, Event: ev}
	switch ev {
	case event.PreToolUse, event.PostToolUse, event.PostToolUseFailure, event.PermissionRequest:
		in.ToolName, in.ToolUseID = "Bash", "toolu_sample"
		in.ToolInput = json.RawMessage(`{"command":"echo hello","description":"Print hello"}`)
		if ev == event.PostToolUse {
			in.ToolResponse = json.RawMessage(`{"success":true,"content":"hello"}`)
		}
		if ev == event.PostToolUseFailure {
			in.Extra = map[string]json.RawMessage{"error": json.RawMessage(`"exit status 1"`), "is_interrupt": json.RawMessage("false")}
		}
	case event.UserPromptSubmit:
		in.Prompt = "Please add a test for the parser"
	case event.SessionStart:
		in.Source = "startup"
	case event.SessionEnd:
		in.Reason = "other"
	case event.SubagentStart, event.SubagentStop:
		in.Extra = map[string]json.RawMessage{"agent_id": json.RawMessage(`"agent_sample"`), "agent_type": json.RawMessage(`"general-purpose"`)}
	case event.PreCompact:
		in.Extra = map[string]json.RawMessage{"trigger": json.RawMessage(`"manual"`), "custom_instructions": json.RawMessage(`""`)}
	case event.PostCompact:
		in.Extra = map[string]json.RawMessage{"trigger": json.RawMessage(`"manual"`),
			"compact_summary": json.RawMessage(`"The user and the agent rewrote the parser."`)}
	case event.Notification:
		in.Extra = map[string]json.RawMessage{"message": json.RawMessage(`"The agent needs your attention"`),
			"title": json.RawMessage(`"Wave"`), "notification_type": json.RawMessage(`"idle_prompt"`)}
	default:
		event.LaterSample(&in)
	}
	return in
}

// FireHook runs one configured hook, alone, with the given input, through
// the same executor and interpreter as a real event; trust is the caller's
// business.
func (e *Engine) FireHook(ctx context.Context, h settings.Hook, in event.Input) Result {
	cfg := *e.Config()
	h.Matcher, _ = settings.CompileMatcher("")
	cfg.Hooks = []settings.Hook{h}
	in.Event = h.Event
	return e.fire(ctx, &cfg, nil, trustedForDirect, in, true, noGate{})
}
