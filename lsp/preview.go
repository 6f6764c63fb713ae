package lsp

import (
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// Preview is the wire result an event's hooks would produce, computed from
// the hooks' answer alone, without a session: what `wavehooks run` prints.
// Its blocks are those the event would add to a conversation. An ask stays
// "ask" here, since nobody is there to answer it.
func Preview(in hooks.Input, res hooks.Result) any {
	var blocks []Block
	for _, w := range res.Warnings {
		blocks = append(blocks, Block{Type: session.BlockWarn, Content: w})
	}
	for _, e := range res.Errors {
		blocks = append(blocks, Block{Type: session.BlockError, Content: e})
	}
	if !res.Continue {
		blocks = append(blocks, Block{Type: session.BlockError, Content: "stopped by hook: " + res.StopReason})
	}
	context := append(append([]string{}, res.Context...), res.AdditionalContext...)
	addContext := func() {
		for _, c := range res.Context {
			if in.Event == hooks.SessionStart {
				blocks = append(blocks, Block{Type: session.BlockHook, HookEvent: string(in.Event), Content: c})
			} else {
				blocks = append(blocks, Block{Type: session.BlockText, Content: c})
			}
		}
		for _, c := range res.AdditionalContext {
			blocks = append(blocks, Block{Type: session.BlockHook, HookEvent: string(in.Event), Content: c})
		}
	}
	flow := func() *FlowResult {
		return &FlowResult{Blocked: res.Blocked, Reason: res.Reason, AdditionalContext: nonNil(context),
			Continue: res.Continue, StopReason: res.StopReason, Blocks: nonNil(blocks)}
	}
	switch in.Event {
	case hooks.PreToolUse:
		perm := string(res.Permission)
		if perm == "" {
			perm = string(hooks.PermissionAllow)
		}
		input := in.ToolInput
		if res.UpdatedInput != nil && res.Permission != hooks.PermissionDeny {
			input = res.UpdatedInput
		}
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		if res.Permission == hooks.PermissionDeny {
			f := false
			blocks = append(blocks, Block{Type: session.BlockTool, ID: in.ToolUseID, Name: in.ToolName, Input: input,
				Result: res.Reason, Success: &f, Error: "Hook blocked tool execution"})
		}
		return &PreToolUseResult{Permission: perm, Reason: res.Reason, ToolInput: input, Continue: res.Continue,
			StopReason: res.StopReason, Blocks: nonNil(blocks)}
	case hooks.UserPromptSubmit:
		if res.Blocked {
			blocks = append(blocks, Block{Type: session.BlockError, Content: res.Reason})
		} else {
			addContext()
		}
		return flow()
	case hooks.PostToolUse, hooks.Stop:
		if res.Blocked {
			blocks = append(blocks, Block{Type: session.BlockText, Content: res.Reason})
		}
		addContext()
		return flow()
	case hooks.SessionStart:
		addContext()
		return &SessionStartResult{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, AdditionalContext: nonNil(context),
			Continue: res.Continue, StopReason: res.StopReason, Blocks: nonNil(blocks)}
	case hooks.SessionEnd:
		return &BlocksResult{Blocks: nonNil(blocks)}
	case hooks.PermissionRequest:
		f := flow()
		perm := res.Permission
		if !res.Continue {
			perm = hooks.PermissionDeny
		}
		f.Permission = string(perm)
		if perm == hooks.PermissionAllow {
			f.ToolInput = in.ToolInput
			if res.UpdatedInput != nil {
				f.ToolInput = res.UpdatedInput
			}
			if len(f.ToolInput) == 0 {
				f.ToolInput = json.RawMessage("{}")
			}
		}
		addContext()
		f.Blocks = nonNil(blocks)
		return f
	case hooks.SubagentStart, hooks.SubagentStop:
		return flow() // what the hooks say is for the subagent, not the conversation
	case hooks.PreCompact:
		if res.Blocked {
			blocks = append(blocks, Block{Type: session.BlockError, Content: "compaction blocked by a PreCompact hook: " + res.Reason})
		}
		addContext()
		return flow()
	default: // PostToolUseFailure, Notification, PostCompact
		if res.Blocked {
			blocks = append(blocks, Block{Type: session.BlockText, Content: res.Reason})
		}
		addContext()
		return flow()
	}
}
