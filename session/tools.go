package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// PreToolUse decides whether a tool call may run. The tool block is in the
// transcript before the hooks run. A deny (or a user's deny) puts the reason
// in the tool block as its failed result; an "ask" is put to the user through
// ask without holding the session's lock, and a user's deny also ends the
// turn (docs/hooks.md, "JSON output": shouldContinueRecursion=false).
func (s *Session) PreToolUse(ctx context.Context, toolUseID, toolName string, toolInput json.RawMessage, ask AskFunc) (Outcome, error) {
	toolInput, err := CheckToolCall(TypedToolCall, toolUseID, toolName, toolInput)
	if err != nil {
		return Outcome{}, err
	}
	var touched bool // the event added or changed the tool block
	if err := s.begin(func() { touched = s.ensureTool(toolUseID, toolName, toolInput) }); err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, hooks.Input{Event: hooks.PreToolUse, ToolName: toolName, ToolInput: toolInput, ToolUseID: toolUseID})

	effective := toolInput
	if res.UpdatedInput != nil {
		effective = res.UpdatedInput
	}
	perm, reason, refusal := res.Permission, res.Reason, hookBlockedTool
	asked, userDenied := false, false
	switch {
	case !res.Continue:
		perm = hooks.PermissionDeny
		if reason == "" || res.Permission != hooks.PermissionDeny {
			reason = "stopped by hook: " + res.StopReason
		}
	case perm == hooks.PermissionAsk && ask == nil:
		perm, reason = hooks.PermissionDeny, "permission to run "+toolName+" was needed and no one could be asked"
		if res.Reason != "" {
			reason += ": " + res.Reason
		}
	case perm == hooks.PermissionAsk:
		asked = true
		if ask(ctx, AskRequest{SessionID: s.id, ToolUseID: toolUseID, ToolName: toolName, ToolInput: rawjson.OrEmptyObject(effective), Reason: res.Reason}) {
			perm = hooks.PermissionAllow
		} else {
			perm, userDenied, refusal = hooks.PermissionDeny, true, userDeniedTool
			reason = "The user denied permission to run " + toolName + "."
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	out.Decision = decision(res)
	out.Asked = asked
	out.ToolInput = rawjson.OrEmptyObject(effective)
	change := func(*Block) {}
	if perm == hooks.PermissionDeny {
		out.Permission, out.Reason = string(hooks.PermissionDeny), reason
		change = func(b *Block) { b.Result, b.Success, b.Error = reason, boolPtr(false), refusal }
		if userDenied {
			out.Continue, out.StopReason = false, reason
		}
	} else {
		out.Permission, out.Reason = string(hooks.PermissionAllow), res.Reason
		if res.UpdatedInput != nil {
			change = func(b *Block) { b.Input = res.UpdatedInput }
		}
	}
	switch {
	case perm == hooks.PermissionDeny || res.UpdatedInput != nil:
		if b, ok := s.conv.updateTool(toolUseID, change); ok {
			out.add(b)
		}
	case touched:
		// Reported as added, not changed again: marking it changed would
		// make the save encode it once more to find it equal (a 100 MB
		// input costs that much memory and time).
		if mi, bi, ok := s.conv.findTool(toolUseID); ok {
			out.add(s.conv.msgs[mi].Blocks[bi])
		}
	}
	s.notices(&out, &res)
	if out.Continue {
		out.add(s.conv.addHookBlocks(string(hooks.PreToolUse), res.AdditionalContext)...)
		out.AdditionalContext = append(out.AdditionalContext, res.AdditionalContext...)
	}
	return s.finish(out)
}

// ensureTool adds the tool block of a call the client has not recorded yet,
// or brings its input up to date; it reports whether the block changed.
func (s *Session) ensureTool(id, name string, input json.RawMessage) bool {
	if mi, bi, ok := s.conv.findTool(id); ok {
		if input == nil || bytes.Equal(s.conv.msgs[mi].Blocks[bi].Input, input) {
			return false
		}
		s.conv.updateTool(id, func(b *Block) { b.Input = input })
		return true
	}
	s.conv.addTool(Block{Type: BlockTool, ID: id, Name: name, Input: input})
	return true
}

// PostToolUse records a tool's result in its block, saves it and runs the
// hooks; a block sends the reason to the model as a user message.
func (s *Session) PostToolUse(ctx context.Context, toolUseID, toolName string, toolInput, toolResponse json.RawMessage) (Outcome, error) {
	toolInput, err := CheckToolCall(TypedToolCall, toolUseID, toolName, toolInput)
	if err != nil {
		return Outcome{}, err
	}
	toolResponse, err = normInput(toolResponse)
	if err != nil {
		return Outcome{}, invalid("toolResponse", "%v", err)
	}
	result, success := describeResponse(toolResponse)
	var tool Block
	err = s.begin(func() {
		_ = s.ensureTool(toolUseID, toolName, toolInput)
		tool, _ = s.conv.updateTool(toolUseID, func(b *Block) {
			b.Result, b.Success, b.Error = result, boolPtr(success), ""
		})
	})
	if err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, hooks.Input{Event: hooks.PostToolUse, ToolName: toolName, ToolInput: toolInput,
		ToolUseID: toolUseID, ToolResponse: toolResponse})
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	out.ToolResponse = orNull(toolResponse)
	if res.UpdatedToolOutput != nil {
		// A hook replaced what the model sees (a redaction, say): the tool
		// block keeps only the replacement, so the model never sees the
		// original, and once the event ends neither does the transcript.
		out.ToolResponse = res.UpdatedToolOutput
		result, success := describeResponse(res.UpdatedToolOutput)
		if b, ok := s.conv.updateTool(toolUseID, func(b *Block) { b.Result, b.Success = result, boolPtr(success) }); ok {
			tool = b
		}
	}
	out.add(tool)
	s.notices(&out, &res)
	if out.Continue {
		if res.Blocked {
			s.feedback(&out, res.Reason)
		}
		out.add(s.conv.addHookBlocks(string(hooks.PostToolUse), res.AdditionalContext)...)
		out.AdditionalContext = append(out.AdditionalContext, res.AdditionalContext...)
	}
	return s.finish(out)
}

// describeResponse turns a tool response into the tool block's result text
// and success: a JSON string as it is, else the response's "content" or
// "output" string field, else its JSON; success from a boolean "success"
// field, else true.
func describeResponse(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", true
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return string(raw), true
	}
	success := true
	if v, ok := obj["success"]; ok {
		var b bool
		if json.Unmarshal(v, &b) == nil {
			success = b
		}
	}
	for _, k := range []string{"content", "output"} {
		if v, ok := obj[k]; ok && json.Unmarshal(v, &str) == nil {
			return str, success
		}
	}
	return string(raw), success
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
			switch {
			case b.ID == "":
				return invalid(fmt.Sprintf("blocks[%d].id", i), "a tool block needs an id")
			case b.Name == "":
				return invalid(fmt.Sprintf("blocks[%d].name", i), "a tool block needs its tool's name")
			}
			if ids[b.ID] {
				return invalid(fmt.Sprintf("blocks[%d].id", i), "tool id %q appears twice in the message", b.ID)
			}
			ids[b.ID] = true
			in, err := normInput(b.Input)
			if err != nil {
				return invalid(fmt.Sprintf("blocks[%d].input", i), "%v", err)
			}
			clean = append(clean, Block{Type: BlockTool, ID: b.ID, Name: b.Name, Input: in,
				Result: b.Result, Success: b.Success, Error: b.Error})
		default:
			return invalid(fmt.Sprintf("blocks[%d].type", i), `must be "text" or "tool" (an assistant message holds text and tool calls), not %q`, b.Type)
		}
	}
	return s.begin(func() {
		var fresh []Block
		for _, b := range clean {
			if b.Type == BlockTool {
				if _, _, ok := s.conv.findTool(b.ID); ok {
					s.conv.updateTool(b.ID, func(old *Block) {
						if b.Name != "" {
							old.Name = b.Name
						}
						if b.Input != nil {
							old.Input = b.Input
						}
						if b.hasResult() {
							old.Result, old.Success, old.Error = b.Result, b.Success, b.Error
						}
					})
					continue
				}
			}
			fresh = append(fresh, b)
		}
		if len(fresh) > 0 {
			s.conv.add(RoleAssistant, fresh...)
			s.conv.msgs[len(s.conv.msgs)-1].reply = true
		}
	})
}

// normInput checks JSON from a client before it is stored, and compacts it
// (a session file holds one message per line): null and empty become nil (no
// input), anything else must be valid JSON. Compact JSON, what editors send,
// is returned as it is, sharing raw's memory (a tool input can be 100 MB, and
// the server's frames are never reused): validating it is enough, and
// json.Valid is about twice as fast as json.Compact.
func normInput(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if rawjson.IsCompact(t) && json.Valid(t) {
		return t[:len(t):len(t)], nil
	}
	var buf bytes.Buffer
	buf.Grow(len(t)) // compact JSON is never longer: one allocation, however large the input
	if err := json.Compact(&buf, t); err != nil {
		return nil, fmt.Errorf("invalid JSON %.40q: %w", t, err)
	}
	return buf.Bytes(), nil
}

// decision is what PreToolUse hooks decided, before anyone was asked:
// "allow", "deny", "ask", or "none" when no hook had an opinion (the editor
// then applies its own permission rules). continue:false counts as deny.
func decision(res hooks.Result) string {
	switch {
	case !res.Continue:
		return string(hooks.PermissionDeny)
	case res.Permission == hooks.PermissionNone:
		return "none"
	}
	return string(res.Permission)
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}
