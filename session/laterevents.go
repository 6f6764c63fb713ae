package session

import (
	"context"
	"encoding/json"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// workingDir is the agent's working directory as CwdChanged last reported
// it, or "" (the project root).
func (s *Session) workingDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// PostToolBatch fires PostToolBatch once for a batch of parallel tool calls
// the session has recorded (by preToolUse and postToolUse), named by their
// tool use ids: each call's tool_name, tool_input, tool_use_id and, as
// tool_response, the result the model sees.
func (s *Session) PostToolBatch(ctx context.Context, toolUseIDs []string) (Outcome, error) {
	if len(toolUseIDs) == 0 {
		return Outcome{}, flow.Invalid("toolUseIds", "a batch needs at least one tool use id")
	}
	type call struct {
		ToolName     string          `json:"tool_name"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolUseID    string          `json:"tool_use_id"`
		ToolResponse string          `json:"tool_response"`
	}
	calls := make([]call, 0, len(toolUseIDs))
	s.mu.Lock()
	for _, id := range toolUseIDs {
		mi, bi, ok := s.conv.findTool(id)
		if !ok {
			s.mu.Unlock()
			return Outcome{}, flow.Invalid("toolUseIds", "the session has no tool call %q", id)
		}
		t := s.conv.msgs[mi].Blocks[bi].Tool()
		resp := t.Result
		if resp == "" {
			resp = t.Error
		}
		calls = append(calls, call{ToolName: t.Name, ToolInput: rawjson.OrEmptyObject(t.Input), ToolUseID: t.ID, ToolResponse: resp})
	}
	s.mu.Unlock()
	raw, err := json.Marshal(calls)
	if err != nil {
		return Outcome{}, err
	}
	return s.RunHooks(ctx, event.Input{Event: event.PostToolBatch, Extra: map[string]json.RawMessage{"tool_calls": raw}}, nil)
}

// ToolCall returns the tool block of a call the session recorded.
func (s *Session) ToolCall(id string) (Block, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mi, bi, ok := s.conv.findTool(id)
	if !ok {
		return Block{}, false
	}
	return s.conv.msgs[mi].Blocks[bi], true
}
