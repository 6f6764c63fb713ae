package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// claudeAgentACP is claude-agent-acp, Claude Code behind Zed's ACP adapter
// (issue #26 item 5). It starts its sessions in modes that never ask for
// permission (auto, acceptEdits, bypassPermissions), but Claude Code runs
// its own PreToolUse hooks in every mode: the proxy adds one to each
// session's settings, through session/new's _meta.claudeCode.options.settings
// (the adapter passes it to the Claude Agent SDK, which hands it to Claude
// Code as a --settings layer), and answers it with Claude Code's hook JSON,
// which asks, allows with an updatedInput, adds context and stops the turn.
type claudeAgentACP struct{}

// ClaudeHookTimeout is the timeout, in seconds, Claude Code gives the
// bridge's hook: a hook that times out does not block the tool in Claude
// Code, so it is as long as a user's hook could reasonably wait.
const ClaudeHookTimeout = 3600

func (claudeAgentACP) Name() string { return "claude-agent-acp" }

// Matches claude-agent-acp (or its older name) by the name it gave in
// initialize or by its command line.
func (claudeAgentACP) Matches(agentName string, command []string) bool {
	if RunsClaudeHooks(agentName) {
		return true
	}
	for _, a := range command {
		if RunsClaudeHooks(filepath.ToSlash(a)) {
			return true
		}
	}
	return false
}

func (claudeAgentACP) BeforeStart() bool { return false }

func (claudeAgentACP) Command(command []string, _ string) ([]string, error) { return command, nil }

func (claudeAgentACP) Caps() Caps {
	return Caps{AsksUser: true, TakesRewrite: true, TakesContext: true, Stops: true, ShowsRefused: true}
}

func (claudeAgentACP) SameCall(hook, described Call) bool { return sameJSON(hook, described) }

// Answer is Claude Code's PreToolUse hook answer.
func (claudeAgentACP) Answer(a Answer) []byte {
	specific := acpmsg.PreToolUseOutput{HookEventName: "PreToolUse"}
	switch {
	case a.Deny != "":
		specific.PermissionDecision, specific.PermissionDecisionReason = "deny", &a.Deny
	case a.Ask != "" || a.AskSet:
		specific.PermissionDecision, specific.PermissionDecisionReason = "ask", &a.Ask
	case a.Allow:
		specific.PermissionDecision = "allow"
		if a.Reason != "" {
			specific.PermissionDecisionReason = &a.Reason
		}
		specific.UpdatedInput = a.UpdatedInput
	}
	if a.Deny == "" && len(a.Context) > 0 {
		c := strings.Join(a.Context, "\n")
		specific.AdditionalContext = &c
	}
	answer := acpmsg.BridgeAnswer{HookSpecificOutput: specific}
	if a.Stop {
		no := false
		answer.Continue, answer.StopReason = &no, &a.StopReason
	}
	return mustRaw(answer)
}

// SessionRequest adds the bridge's hook to a session-opening request's
// _meta.claudeCode.options.settings, keeping what the editor put there (its
// settings object, or the file it names, read relative to the session's
// cwd through readFile). The request is returned unchanged, with an error,
// when it cannot be read: the caller refuses the session rather than start
// it without the file's settings (its permission rules, say) or without
// the bridge's hook.
func (claudeAgentACP) SessionRequest(line []byte, hook string, readFile func(string) ([]byte, error)) ([]byte, error) {
	var msg acpmsg.Object
	if err := json.Unmarshal(line, &msg); err != nil {
		return line, err
	}
	params, err := objectMember(msg, "params")
	if err != nil || isNull(msg["params"]) {
		return line, errors.New("its params are not an object")
	}
	meta, err := objectMember(params, "_meta")
	if err != nil {
		return line, err
	}
	cc, err := objectMember(meta, "claudeCode")
	if err != nil {
		return line, err
	}
	options, err := objectMember(cc, "options")
	if err != nil {
		return line, err
	}
	var file string
	if json.Unmarshal(options["settings"], &file) == nil && !isNull(options["settings"]) {
		var cwd string
		_ = json.Unmarshal(params["cwd"], &cwd)
		if !filepath.IsAbs(file) {
			file = filepath.Join(cwd, file) // as the adapter resolves it
		}
		data, err := readFile(file)
		var s acpmsg.Object
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err == nil && s == nil {
			err = errors.New("it is not an object")
		}
		if err != nil {
			return line, fmt.Errorf("the settings file it names: %w", err)
		}
		options["settings"] = mustRaw(s)
	}
	settings, err := objectMember(options, "settings")
	if err != nil {
		return line, err
	}
	hk, err := objectMember(settings, "hooks")
	if err != nil {
		return line, err
	}
	var pre []json.RawMessage
	if raw := hk["PreToolUse"]; !isNull(raw) && (json.Unmarshal(raw, &pre) != nil || pre == nil) {
		return line, errors.New("its settings' event.PreToolUse is not a list")
	}
	// A repository's .claude/settings.json could turn every hook off,
	// the bridge's with them; this layer ranks above the project's.
	settings["disableAllHooks"] = mustRaw(false)
	hk["PreToolUse"] = mustRaw(append(pre, mustRaw(acpmsg.ClaudeHookMatcher{Matcher: "*", Hooks: []acpmsg.ClaudeCommandHook{
		{Type: "command", Command: hook, Timeout: ClaudeHookTimeout}}})))
	settings["hooks"] = mustRaw(hk) // each level goes back into its parent, innermost first
	options["settings"] = mustRaw(settings)
	cc["options"] = mustRaw(options)
	meta["claudeCode"] = mustRaw(cc)
	params["_meta"] = mustRaw(meta)
	msg["params"] = mustRaw(params)
	return append(mustRaw(msg), '\n'), nil
}

// objectMember is the object at parent[key], as an Object whose members
// keep their bytes; an empty one when the member is absent or null.
func objectMember(parent acpmsg.Object, key string) (acpmsg.Object, error) {
	raw := parent[key]
	if isNull(raw) {
		return acpmsg.Object{}, nil
	}
	var obj acpmsg.Object
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("its %s is not an object", key)
	}
	return obj, nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

func mustRaw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("agents: cannot encode: %v", err))
	}
	return b
}
