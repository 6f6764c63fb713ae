package flow

import (
	"encoding/json"
	"path/filepath"

	"github.com/wavehooks/wavehooks/internal/event"
)

// Before is what an event does before its hooks run: the input as the
// hooks receive it (the session's part of their stdin filled in) and the
// changes to save first, so that the transcript the hooks read already
// holds the event (the prompt, the tool call and its result). A mistake in
// the input is an InvalidError, and nothing changes.
//
//   - UserPromptSubmit adds the prompt; a new prompt ends a run of blocked
//     Stop events.
//   - PreToolUse records the tool call; PostToolUse records it with its
//     result (the caller checked both with CheckToolCall).
//   - Stop and SubagentStop set stop_hook_active when the previous stop was
//     blocked; Stop gets last_assistant_message.
//   - CwdChanged needs an absolute new_cwd, gets old_cwd when the caller
//     left it out, and makes new_cwd the cwd of later events.
func Before(in event.Input, st State) (event.Input, []Change, error) {
	switch in.Event {
	case event.UserPromptSubmit:
		return in, []Change{{Kind: AddPrompt, Text: in.Prompt}, {Kind: SetStopStreak, N: 0}}, nil
	case event.PreToolUse:
		return in, []Change{recordTool(in)}, nil
	case event.PostToolUse:
		result, success := DescribeResponse(in.ToolResponse)
		return in, []Change{recordTool(in),
			{Kind: SetToolResult, Tool: ToolCall{ID: in.ToolUseID}, Text: result, Success: success}}, nil
	case event.Stop:
		in.StopHookActive, in.LastAssistantMessage = st.StopStreak() > 0, st.LastAssistantText()
	case event.SubagentStop:
		if st.SubagentStopStreak(StringField(in.Extra, "agent_id")) > 0 {
			in.StopHookActive = true
		}
	case event.CwdChanged:
		return cwdChanged(in, st)
	}
	return in, nil, nil
}

func recordTool(in event.Input) Change {
	return Change{Kind: RecordTool, Tool: ToolCall{ID: in.ToolUseID, Name: in.ToolName, Input: in.ToolInput}}
}

// cwdChanged checks CwdChanged's new_cwd (an absolute path, if given) and
// fills in old_cwd, when the caller left it out, with the session's cwd.
func cwdChanged(in event.Input, st State) (event.Input, []Change, error) {
	dir := StringField(in.Extra, "new_cwd")
	if dir != "" && !filepath.IsAbs(dir) {
		return in, nil, Invalid("input.new_cwd", "must be an absolute path, not %q", dir)
	}
	if StringField(in.Extra, "old_cwd") == "" {
		old := st.Cwd()
		if old == "" {
			old = st.Root()
		}
		extra := make(map[string]json.RawMessage, len(in.Extra)+1)
		for k, v := range in.Extra {
			extra[k] = v
		}
		extra["old_cwd"], _ = json.Marshal(old)
		in.Extra = extra
	}
	if dir == "" {
		return in, nil, nil
	}
	return in, []Change{{Kind: SetCwd, Text: filepath.Clean(dir)}}, nil
}

// StringField is a string field of an event's stdin, "" when absent.
func StringField(extra map[string]json.RawMessage, key string) string {
	var v string
	if raw, ok := extra[key]; ok {
		_ = json.Unmarshal(raw, &v)
	}
	return v
}

// DescribeResponse turns a tool response into the tool block's result text
// and success: a JSON string as it is, else the response's "content" or
// "output" string field, else its JSON; success from a boolean "success"
// field, else true.
func DescribeResponse(raw json.RawMessage) (string, bool) {
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
