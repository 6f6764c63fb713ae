package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
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
//
// With hook.HTTP, and unless the request names a Claude Code of its own
// (options.pathToClaudeCodeExecutable, whose version is not known), the
// hook is an http hook to the bridge on loopback that fails closed
// (onFailure "block"): its secret is in the header Claude Code fills from
// the environment variable the request's options.env gives Claude Code's
// process, so that the secret is not in Claude Code's command line, where
// the adapter puts the settings (--settings).
func (claudeAgentACP) SessionRequest(line []byte, hook Hook, readFile func(string) ([]byte, error)) ([]byte, error) {
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
	ours := mustRaw(acpmsg.ClaudeHookMatcher{Matcher: "*", Hooks: []acpmsg.ClaudeCommandHook{
		{Type: "command", Command: hook.Command, Timeout: ClaudeHookTimeout}}})
	if h := hook.HTTP; h != nil && isNull(options["pathToClaudeCodeExecutable"]) {
		env, err := objectMember(options, "env")
		if err != nil {
			return line, err
		}
		env[h.EnvVar] = mustRaw(h.Secret)
		options["env"] = mustRaw(env)
		ours = mustRaw(acpmsg.ClaudeHTTPHookMatcher{Matcher: "*", Hooks: []acpmsg.ClaudeHTTPHook{{Type: "http", URL: h.URL,
			Headers: map[string]string{h.Header: "${" + h.EnvVar + "}"}, AllowedEnvVars: []string{h.EnvVar},
			OnFailure: "block", Timeout: ClaudeHookTimeout}}})
	}
	hk["PreToolUse"] = mustRaw(append(pre, ours))
	settings["hooks"] = mustRaw(hk) // each level goes back into its parent, innermost first
	options["settings"] = mustRaw(settings)
	cc["options"] = mustRaw(options)
	meta["claudeCode"] = mustRaw(cc)
	params["_meta"] = mustRaw(meta)
	msg["params"] = mustRaw(params)
	return append(mustRaw(msg), '\n'), nil
}

// ClaudeHTTPHooksSince is the first Claude Code whose http hooks fail
// closed (onFailure "block", 2.1.295): in an older one a bridge it cannot
// reach would let the tool run.
var ClaudeHTTPHooksSince = [3]int{2, 1, 295}

// claudeSDKPackage is where the Claude Agent SDK's package.json is, under
// a node_modules directory: its claudeCodeVersion is the Claude Code it
// bundles, which the adapter runs.
const claudeSDKPackage = "@anthropic-ai/claude-agent-sdk/package.json"

// HTTPHooks reads the version of the Claude Code the adapter runs from the
// Claude Agent SDK it resolves (Node's lookup: node_modules of the
// adapter's directory and of each one above it), found from the adapter's
// script on the command line. Anything else — CLAUDE_CODE_EXECUTABLE in
// its environment (another Claude Code), a command that names no script
// (npx, a wrapper), no SDK found, an older Claude Code — keeps the command
// hook, which every version runs and which fails closed.
func (claudeAgentACP) HTTPHooks(command, env []string, readFile func(string) ([]byte, error)) (bool, string) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "CLAUDE_CODE_EXECUTABLE=") {
			return false, "its CLAUDE_CODE_EXECUTABLE names a Claude Code whose version is not known"
		}
	}
	for _, arg := range command {
		if !RunsClaudeHooks(filepath.ToSlash(arg)) {
			continue
		}
		script, err := filepath.EvalSymlinks(arg)
		if err != nil {
			continue
		}
		for dir := filepath.Dir(script); ; dir = filepath.Dir(dir) {
			data, err := readFile(filepath.Join(dir, "node_modules", filepath.FromSlash(claudeSDKPackage)))
			if err == nil {
				var pkg struct {
					ClaudeCodeVersion string `json:"claudeCodeVersion"`
				}
				if json.Unmarshal(data, &pkg) != nil || pkg.ClaudeCodeVersion == "" {
					return false, "its Claude Agent SDK names no Claude Code version"
				}
				if !versionAtLeast(pkg.ClaudeCodeVersion, ClaudeHTTPHooksSince) {
					return false, "it runs Claude Code " + pkg.ClaudeCodeVersion + ", whose http hooks do not fail closed (2.1.295 and later do)"
				}
				return true, "it runs Claude Code " + pkg.ClaudeCodeVersion
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return false, "the Claude Code it runs was not found beside it"
}

// versionAtLeast says whether a version "MAJOR.MINOR.PATCH" (a suffix after
// "-" ignored) is at least min; a version it cannot read is not.
func versionAtLeast(v string, min [3]int) bool {
	v, _, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return false
		}
		if n != min[i] {
			return n > min[i]
		}
	}
	return true
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
