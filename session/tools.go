package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// PreToolUse decides whether a tool call may run (flow.After documents the
// rules). The tool block is in the transcript before the hooks run; an "ask"
// is put to the user through ask without holding the session's lock.
func (s *Session) PreToolUse(ctx context.Context, toolUseID, toolName string, toolInput json.RawMessage, ask AskFunc) (Outcome, error) {
	return s.Report(ctx, Report{Input: event.Input{Event: event.PreToolUse, ToolName: toolName, ToolInput: toolInput, ToolUseID: toolUseID}, Ask: ask})
}

// checkToolEvent checks a tool call's fields once, naming them as f spells
// them: a tool input can be 100 MB, and every check reads all of it.
func checkToolEvent(f flow.ToolCallFields, in event.Input) (event.Input, error) {
	var err error
	if in.ToolInput, err = flow.CheckToolCall(f, in.ToolUseID, in.ToolName, in.ToolInput); err != nil {
		return in, err
	}
	if in.Event == event.PostToolUse {
		if in.ToolResponse, err = flow.NormJSON(in.ToolResponse); err != nil {
			return in, flow.Invalid(f.Response, "%v", err)
		}
	}
	return in, nil
}

// StartPreToolUse is PreToolUse in two phases: the hooks run, and the
// caller answers the rules' Questions itself (Pending.Finish) instead of
// through an AskFunc, where the ask is a prompt of its own that comes later
// (the ACP proxy passes it to the editor) or nobody's (`wavehooks run`).
func (s *Session) StartPreToolUse(ctx context.Context, toolUseID, toolName string, toolInput json.RawMessage) (*Pending, error) {
	in, err := checkToolEvent(flow.TypedToolCall, event.Input{Event: event.PreToolUse, ToolName: toolName, ToolInput: toolInput, ToolUseID: toolUseID})
	if err != nil {
		return nil, err
	}
	return s.start(ctx, in, event.Input{})
}

// StartHooks is RunHooks' PreToolUse in two phases, for an input given as
// a hook's stdin (wave/runHooks, `wavehooks run`): every field of in
// reaches the hooks. Other events have no question to answer: RunHooks
// runs them whole.
func (s *Session) StartHooks(ctx context.Context, in event.Input) (*Pending, error) {
	if in.Event != event.PreToolUse {
		return nil, fmt.Errorf("session: StartHooks is for PreToolUse, not %s", in.Event)
	}
	own, err := checkToolEvent(flow.StdinToolCall, event.Input{Event: in.Event, ToolName: in.ToolName, ToolInput: in.ToolInput, ToolUseID: in.ToolUseID})
	if err != nil {
		return nil, err
	}
	return s.start(ctx, own, in) // what PreToolUse does not take reaches the hooks as the client's input
}

// ensureTool adds the tool block of a call the client has not recorded yet,
// or brings its input up to date; it reports whether the block changed.
func (s *Session) ensureTool(id, name string, input json.RawMessage) bool {
	if mi, bi, ok := s.conv.findTool(id); ok {
		if input == nil || bytes.Equal(s.conv.msgs[mi].Blocks[bi].Tool().Input, input) {
			return false
		}
		s.conv.updateTool(id, func(t *Tool) { t.Input = input })
		return true
	}
	s.conv.addTool(ToolBlock(Tool{ID: id, Name: name, Input: input}))
	return true
}

// PostToolUse records a tool's result in its block, saves it and runs the
// hooks; a block sends the reason to the model as a user message.
func (s *Session) PostToolUse(ctx context.Context, toolUseID, toolName string, toolInput, toolResponse json.RawMessage) (Outcome, error) {
	return s.Report(ctx, Report{Input: event.Input{Event: event.PostToolUse, ToolName: toolName, ToolInput: toolInput,
		ToolUseID: toolUseID, ToolResponse: toolResponse}})
}

// AddAssistantMessage records what the model said: text and tool blocks, as
// a new assistant message. A tool block whose id the session already has (a
// PreToolUse came first) updates that block instead of repeating it.
func (s *Session) AddAssistantMessage(blocks []Block) error {
	clean := make([]Block, 0, len(blocks))
	ids := map[string]bool{}
	for i, b := range blocks {
		switch b.Type {
		case BlockText:
			clean = append(clean, Block{Type: BlockText, Content: b.Content})
		case BlockTool:
			t := b.Tool()
			switch {
			case t.ID == "":
				return flow.Invalid(fmt.Sprintf("blocks[%d].id", i), "a tool block needs an id")
			case t.Name == "":
				return flow.Invalid(fmt.Sprintf("blocks[%d].name", i), "a tool block needs its tool's name")
			}
			if ids[t.ID] {
				return flow.Invalid(fmt.Sprintf("blocks[%d].id", i), "tool id %q appears twice in the message", t.ID)
			}
			ids[t.ID] = true
			in, err := flow.NormJSON(t.Input)
			if err != nil {
				return flow.Invalid(fmt.Sprintf("blocks[%d].input", i), "%v", err)
			}
			t.Input = in
			clean = append(clean, ToolBlock(t))
		default:
			return flow.Invalid(fmt.Sprintf("blocks[%d].type", i), `must be "text" or "tool" (an assistant message holds text and tool calls), not %q`, b.Type)
		}
	}
	return s.begin(func() error {
		var fresh []Block
		for _, b := range clean {
			if bt := b.Tool(); b.Type == BlockTool {
				if _, _, ok := s.conv.findTool(bt.ID); ok {
					s.conv.updateTool(bt.ID, func(old *Tool) {
						if bt.Name != "" {
							old.Name = bt.Name
						}
						if bt.Input != nil {
							old.Input = bt.Input
						}
						if b.HasResult() {
							old.Result, old.Success, old.Error = bt.Result, bt.Success, bt.Error
						}
					})
					continue
				}
			}
			fresh = append(fresh, b)
		}
		if len(fresh) > 0 {
			s.conv.add(RoleAssistant, fresh...)
			s.conv.msgs[len(s.conv.msgs)-1].SetReply(true)
		}
		return nil
	}, nil)
}
