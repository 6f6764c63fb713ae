package agentfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Stdin writes the stdin an agent's hook of agentEvent reads, from the
// stdin wavehooks writes for a Claude Code hook (the same event). Fields
// the agent's hook expects that wavehooks does not have are left out
// (docs/parity.md names them); wavehooks' fields the agent does not know
// are kept, under their names, when nothing the agent reads has that name.
func Stdin(a Agent, agentEvent string, claude []byte) ([]byte, error) {
	in := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(claude))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("the hook input is not a JSON object: %w", err)
	}
	out := map[string]any{}
	for k, v := range in {
		out[k] = v
	}
	out["hook_event_name"] = agentEvent
	tool, _ := in["tool_name"].(string)
	input, _ := in["tool_input"].(map[string]any)
	switch a {
	case Gemini:
		out["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		if tool != "" {
			out["tool_name"] = AgentTool(a, tool)
		}
		if input != nil && (tool == "Glob" || tool == "Grep" || tool == "LS") {
			if p, ok := input["path"]; ok {
				input["dir_path"] = p
			}
		}
		if r, ok := in["tool_response"]; ok {
			text := r
			if _, isString := r.(string); !isString {
				b, _ := json.Marshal(r)
				text = string(b)
			}
			out["tool_response"] = map[string]any{"llmContent": text, "returnDisplay": text}
		}
		if agentEvent == "AfterAgent" {
			if m, ok := in["last_assistant_message"]; ok {
				out["prompt_response"] = m
			}
		}
	case Codex:
		if tool != "" {
			out["tool_name"] = AgentTool(a, tool)
		}
		if AgentTool(a, tool) == "apply_patch" && input != nil {
			out["tool_input"] = map[string]any{"command": patchOf(tool, input)}
		}
	case Cursor:
		delete(out, "session_id")
		out["conversation_id"] = in["session_id"]
		if cwd, ok := in["cwd"].(string); ok {
			out["workspace_roots"] = []string{cwd}
		}
		cursorStdin(agentEvent, tool, input, in, out)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// cursorStdin adds the fields of one of Cursor's events.
func cursorStdin(agentEvent, tool string, input, in, out map[string]any) {
	switch agentEvent {
	case "beforeShellExecution", "afterShellExecution":
		delete(out, "tool_name")
		delete(out, "tool_input")
		delete(out, "tool_response")
		out["command"] = input["command"]
		if agentEvent == "afterShellExecution" {
			if r, ok := in["tool_response"].(map[string]any); ok {
				out["output"] = r["stdout"]
			}
		}
	case "beforeMCPExecution", "afterMCPExecution":
		delete(out, "tool_response")
		if r, ok := in["tool_response"]; ok {
			b, _ := json.Marshal(r)
			out["result_json"] = string(b)
		}
	case "beforeReadFile":
		delete(out, "tool_name")
		delete(out, "tool_input")
		out["file_path"] = input["file_path"]
	case "afterFileEdit":
		delete(out, "tool_name")
		delete(out, "tool_input")
		delete(out, "tool_response")
		out["file_path"] = input["file_path"]
		edit := map[string]any{"old_string": "", "new_string": input["content"]}
		if tool != "Write" {
			edit = map[string]any{"old_string": input["old_string"], "new_string": input["new_string"]}
		}
		out["edits"] = []any{edit}
	case "preToolUse", "postToolUse":
		out["tool_name"] = AgentTool(Cursor, tool)
		if r, ok := in["tool_response"]; ok {
			delete(out, "tool_response")
			b, _ := json.Marshal(r)
			out["tool_output"] = string(b)
		}
	case "stop":
		out["status"] = "completed"
		out["loop_count"] = 0
		if active, _ := in["stop_hook_active"].(bool); active {
			out["loop_count"] = 1
		}
	}
}

// patchOf is the apply_patch body Codex would have handed its hook for a
// Write or Edit: Codex's hooks read the patch, not a file path and text.
func patchOf(tool string, input map[string]any) string {
	path, _ := input["file_path"].(string)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	lines := func(prefix, s string) {
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			b.WriteString(prefix + l + "\n")
		}
	}
	if tool == "Write" {
		b.WriteString("*** Add File: " + path + "\n")
		content, _ := input["content"].(string)
		lines("+", content)
	} else {
		b.WriteString("*** Update File: " + path + "\n@@\n")
		oldS, _ := input["old_string"].(string)
		newS, _ := input["new_string"].(string)
		lines("-", oldS)
		lines("+", newS)
	}
	b.WriteString("*** End Patch")
	return b.String()
}

// Answer reads what an agent's hook of agentEvent printed (its stdout, in
// its agent's shape) into the answer a Claude Code hook of the same event
// would have printed, for the engine to read as it reads any hook's.
// Output that is not a JSON object is returned as it is (the engine reads
// plain text as Claude Code does). claudeStdin is the event's own input,
// for the answers that change a tool's input by merging (Gemini CLI's).
func Answer(a Agent, agentEvent string, stdout, claudeStdin []byte) []byte {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return stdout
	}
	var ans map[string]any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if dec.Decode(&ans) != nil {
		return stdout
	}
	m, ok := EventFor(a, agentEvent)
	if !ok {
		return stdout
	}
	var out map[string]any
	switch a {
	case Codex:
		return stdout // Codex's answers are Claude Code's (a subset)
	case Gemini:
		out = geminiAnswer(string(m.Event), ans, claudeStdin)
	case Cursor:
		out = cursorAnswer(agentEvent, string(m.Event), ans)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return stdout
	}
	return b
}

// common copies the fields every agent's answer shares with Claude Code's.
func common(ans map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"continue", "stopReason", "systemMessage", "suppressOutput"} {
		if v, ok := ans[k]; ok {
			out[k] = v
		}
	}
	return out
}

func geminiAnswer(ev string, ans map[string]any, claudeStdin []byte) map[string]any {
	out := common(ans)
	decision, _ := ans["decision"].(string)
	reason, _ := ans["reason"].(string)
	hso, _ := ans["hookSpecificOutput"].(map[string]any)
	spec := map[string]any{"hookEventName": ev}
	if ctx, ok := hso["additionalContext"]; ok {
		spec["additionalContext"] = ctx
	}
	switch ev {
	case "PreToolUse":
		switch decision {
		case "deny", "block":
			spec["permissionDecision"] = "deny"
		case "allow", "ask":
			spec["permissionDecision"] = decision
		}
		if reason != "" && spec["permissionDecision"] != nil {
			spec["permissionDecisionReason"] = reason
		}
		if rewrite, ok := hso["tool_input"].(map[string]any); ok {
			// Gemini CLI merges the hook's tool_input over the model's.
			var in struct {
				ToolInput map[string]any `json:"tool_input"`
			}
			_ = json.Unmarshal(claudeStdin, &in)
			merged := map[string]any{}
			for k, v := range in.ToolInput {
				merged[k] = v
			}
			for k, v := range rewrite {
				merged[k] = v
			}
			spec["updatedInput"] = merged
			if spec["permissionDecision"] == nil {
				spec["permissionDecision"] = "allow"
			}
		}
	default:
		if decision == "deny" || decision == "block" {
			out["decision"] = "block"
			out["reason"] = reason
		}
	}
	if len(spec) > 1 {
		out["hookSpecificOutput"] = spec
	}
	return out
}

func cursorAnswer(agentEvent, ev string, ans map[string]any) map[string]any {
	out := map[string]any{}
	user, _ := ans["user_message"].(string)
	agent, _ := ans["agent_message"].(string)
	spec := map[string]any{"hookEventName": ev}
	switch ev {
	case "PreToolUse":
		if p, ok := ans["permission"].(string); ok && (p == "allow" || p == "deny" || p == "ask") {
			spec["permissionDecision"] = p
			reason := agent
			if reason == "" {
				reason = user
			}
			if reason != "" {
				spec["permissionDecisionReason"] = reason
			}
		}
		if u, ok := ans["updated_input"].(map[string]any); ok && agentEvent == "preToolUse" {
			spec["updatedInput"] = u
		}
		if user != "" && agent != "" {
			out["systemMessage"] = user
		}
	case "UserPromptSubmit":
		if c, ok := ans["continue"].(bool); ok && !c {
			out["decision"] = "block"
			out["reason"] = user
		}
	case "Stop", "SubagentStop":
		if f, _ := ans["followup_message"].(string); f != "" {
			out["decision"] = "block"
			out["reason"] = f
		}
	}
	if ctx, ok := ans["additional_context"]; ok {
		spec["additionalContext"] = ctx
	}
	if len(spec) > 1 {
		out["hookSpecificOutput"] = spec
	}
	return out
}

// ClaudeStdin is the reverse of Stdin: the stdin a Claude Code hook reads,
// from the stdin an agent gave its hook of agentEvent. It is what an
// exported hook's shim (`wavehooks hooks shim`) hands the wavehooks hook it
// wraps, so that the hook reads what it was written for in every agent.
func ClaudeStdin(a Agent, agentEvent string, agentStdin []byte) ([]byte, error) {
	in := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(agentStdin))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("the agent's hook input is not a JSON object: %w", err)
	}
	m, ok := EventFor(a, agentEvent)
	if !ok {
		return nil, fmt.Errorf("%s has no event %q wavehooks knows", a, agentEvent)
	}
	out := map[string]any{}
	for k, v := range in {
		out[k] = v
	}
	out["hook_event_name"] = string(m.Event)
	if tool, ok := in["tool_name"].(string); ok {
		cs := ClaudeTools(a, tool)
		out["tool_name"] = cs[0]
		if a == Gemini && strings.HasPrefix(tool, "mcp_") {
			out["tool_name"] = tool // the server's and the tool's names cannot be told apart
		}
	}
	switch a {
	case Gemini:
		delete(out, "timestamp")
		if r, ok := in["tool_response"].(map[string]any); ok {
			out["tool_response"] = r["llmContent"]
		}
		if r, ok := in["prompt_response"]; ok && agentEvent == "AfterAgent" {
			out["last_assistant_message"] = r
			delete(out, "prompt_response")
		}
	case Cursor:
		if c, ok := in["conversation_id"]; ok {
			out["session_id"] = c
			delete(out, "conversation_id")
		}
		delete(out, "workspace_roots")
		switch agentEvent {
		case "beforeShellExecution", "afterShellExecution":
			out["tool_name"], out["tool_input"] = "Bash", map[string]any{"command": in["command"]}
			delete(out, "command")
			if o, ok := in["output"]; ok {
				out["tool_response"] = map[string]any{"stdout": o}
				delete(out, "output")
			}
		case "beforeReadFile":
			out["tool_name"], out["tool_input"] = "Read", map[string]any{"file_path": in["file_path"]}
			delete(out, "file_path")
			delete(out, "content")
		case "afterFileEdit":
			out["tool_name"] = "Edit"
			input := map[string]any{"file_path": in["file_path"]}
			if edits, _ := in["edits"].([]any); len(edits) > 0 {
				if e, ok := edits[0].(map[string]any); ok {
					input["old_string"], input["new_string"] = e["old_string"], e["new_string"]
				}
			}
			out["tool_input"] = input
			delete(out, "file_path")
			delete(out, "edits")
		case "stop":
			out["stop_hook_active"] = false
			if n, ok := in["loop_count"].(json.Number); ok && n.String() != "0" {
				out["stop_hook_active"] = true
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// AgentAnswer is the reverse of Answer: what an agent reads from its hook
// of agentEvent, from a Claude Code hook's answer (its stdout). Output that
// is not a JSON object is returned as it is; Codex reads Claude Code's.
func AgentAnswer(a Agent, agentEvent string, claude []byte) []byte {
	trimmed := bytes.TrimSpace(claude)
	if a == Codex || len(trimmed) == 0 || trimmed[0] != '{' {
		return claude
	}
	var ans map[string]any
	if json.Unmarshal(trimmed, &ans) != nil {
		return claude
	}
	m, ok := EventFor(a, agentEvent)
	if !ok {
		return claude
	}
	spec, _ := ans["hookSpecificOutput"].(map[string]any)
	decision, _ := spec["permissionDecision"].(string)
	reason, _ := spec["permissionDecisionReason"].(string)
	if d, _ := ans["decision"].(string); d == "block" && decision == "" {
		decision = "deny"
		reason, _ = ans["reason"].(string)
	}
	out := map[string]any{}
	switch a {
	case Gemini:
		out = common(ans)
		if decision != "" {
			out["decision"] = decision
		}
		if reason != "" {
			out["reason"] = reason
		}
		hso := map[string]any{}
		if c, ok := spec["additionalContext"]; ok {
			hso["additionalContext"] = c
		}
		if u, ok := spec["updatedInput"]; ok && m.Event == "PreToolUse" {
			hso["tool_input"] = u
		}
		if len(hso) > 0 {
			out["hookSpecificOutput"] = hso
		}
	case Cursor:
		switch m.Event {
		case "PreToolUse":
			if decision != "" {
				out["permission"] = decision
			}
			if reason != "" {
				out["agent_message"], out["user_message"] = reason, reason
			}
			if u, ok := spec["updatedInput"]; ok && agentEvent == "preToolUse" {
				out["updated_input"] = u
			}
		case "UserPromptSubmit":
			out["continue"] = decision != "deny"
			if reason != "" {
				out["user_message"] = reason
			}
		case "Stop", "SubagentStop":
			if decision == "deny" && reason != "" {
				out["followup_message"] = reason
			}
		}
		if c, ok := spec["additionalContext"]; ok {
			out["additional_context"] = c
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return claude
	}
	return b
}
