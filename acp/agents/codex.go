package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// codexACP is codex-acp, OpenAI's Codex behind Zed's ACP adapter (issue
// #26 item 5). codex-acp 0.16.0 offers three modes: read-only (Codex asks
// on request; commands run in a read-only sandbox without asking), auto
// (the same in a sandbox that may write the workspace) and full-access
// (never asks, no sandbox). In none of them does every command go through
// session/request_permission. Codex runs hooks of its own in every mode,
// though: a PreToolUse command hook before each tool call, with Claude
// Code's input (tool_name "Bash", tool_input.command, the ACP session id as
// session_id, the tool call's id as tool_use_id) and Claude Code's deny
// output. So the proxy gives Codex one, as `-c` config overrides on
// codex-acp's command line (Codex's session-flags config layer), with the
// hook's trusted hash beside it: Codex runs a hook that is not managed
// only once the user trusted its exact definition, and the session-flags
// layer is one of the two (with the user's config.toml) whose trust it
// reads. The hash is the one Codex computes for a trusted hook: the SHA-256
// of the hook's identity as canonical JSON (keys sorted, no spaces),
// prefixed "sha256:".
//
// Codex's PreToolUse only blocks: it cannot ask the user, and what it does
// with an allow depends on its version. So its answer is a deny or nothing
// (Codex's own mode then decides), and the proxy asks the user itself.
type codexACP struct{}

// CodexHookTimeout is the timeout, in seconds, of the bridge's hook in
// Codex. A hook Codex gives up on does not block the tool, so it is long:
// an ask may wait for the user.
const CodexHookTimeout = 3600

// codexHookKey is Codex's key for the first hook of the session-flags
// layer's PreToolUse: <layer's config path>:<event>:<group>:<handler>.
const codexHookKey = "/<session-flags>/config.toml:pre_tool_use:0:0"

func (codexACP) Name() string { return "codex-acp" }

// Matches an agent whose command runs codex-acp (the program itself, its
// npm package or its JavaScript entry).
func (codexACP) Matches(_ string, command []string) bool { return IsCodexACP(command) }

// IsCodexACP says whether the agent's command runs codex-acp.
func IsCodexACP(command []string) bool {
	for _, a := range command {
		if strings.Contains(filepath.Base(filepath.ToSlash(a)), "codex-acp") {
			return true
		}
	}
	return false
}

func (codexACP) BeforeStart() bool { return true }

// Command is codex-acp's command with the bridge's hook and its trust as
// -c overrides.
func (codexACP) Command(command []string, hook string) ([]string, error) {
	args, err := CodexHookArgs(hook)
	if err != nil {
		return command, err
	}
	return append(append([]string{}, command...), args...), nil
}

func (codexACP) SessionRequest(line []byte, _ Hook, _ func(string) ([]byte, error)) ([]byte, error) {
	return line, nil // its hook is on codex-acp's command line
}

// HTTPHooks: Codex runs command hooks only (its hooks' "type" is "command";
// codex-acp 0.16.0's Codex has no http hook and no in-process one), so it
// is given `wavehooks acp-hook`.
func (codexACP) HTTPHooks(_, _ []string, _ func(string) ([]byte, error)) (bool, string) {
	return false, "Codex runs only command hooks"
}

func (codexACP) Caps() Caps { return Caps{} }

// Answer is Codex's hook answer: Claude Code's deny, or nothing ({}).
func (codexACP) Answer(a Answer) []byte {
	if a.Deny == "" {
		return []byte("{}")
	}
	return mustRaw(acpmsg.BridgeAnswer{HookSpecificOutput: acpmsg.PreToolUseOutput{HookEventName: "PreToolUse",
		PermissionDecision: "deny", PermissionDecisionReason: &a.Deny}})
}

// SameCall compares codex-acp's description of a command (Codex's event:
// the argv it runs, its cwd, its parsed form) with the command line its
// hook got: they agree when the command that runs is that line (sh -c /
// bash -lc LINE, or the argv joined as the proxy joins it).
func (codexACP) SameCall(hook, described Call) bool {
	if sameJSON(hook, described) {
		return true
	}
	if hook.Tool != "Bash" || described.Tool != "Bash" {
		return false
	}
	var h struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(hook.Input, &h) != nil || h.Command == "" {
		return false
	}
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(described.Input, &in) != nil {
		return false
	}
	var argv []string
	if json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0 {
		return shellScript(argv) == h.Command
	}
	var line string
	return json.Unmarshal(in.Command, &line) == nil && line == h.Command
}

// shellScript is the script of a shell started as `sh -c SCRIPT` (or bash,
// zsh, dash, with -lc), the form Codex runs a model's command line in; ""
// for any other argv.
func shellScript(argv []string) string {
	if len(argv) != 3 {
		return ""
	}
	switch shell := argv[0][strings.LastIndexByte(argv[0], '/')+1:]; shell {
	case "sh", "bash", "zsh", "dash":
	default:
		return ""
	}
	if argv[1] != "-c" && argv[1] != "-lc" {
		return ""
	}
	return argv[2]
}

// CodexHookArgs are the -c overrides that give Codex the bridge's hook and
// trust it. The command must be printable ASCII, so that its TOML and JSON
// forms are exactly the ones Codex hashes; anything else is an error (the
// hook would not be trusted, and would silently not run).
func CodexHookArgs(command string) ([]string, error) {
	for _, r := range command {
		if r < 0x20 || r > 0x7e {
			return nil, fmt.Errorf("the hook command %q has a character Codex's trust hash could differ on", command)
		}
	}
	hash, err := codexHookHash(command, CodexHookTimeout)
	if err != nil {
		return nil, err
	}
	quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(command) + `"`
	return []string{
		"-c", fmt.Sprintf(`hooks.PreToolUse=[{hooks=[{type="command",command=%s,timeout=%d}]}]`, quoted, CodexHookTimeout),
		"-c", fmt.Sprintf(`hooks.state={%q={trusted_hash=%q}}`, codexHookKey, hash),
	}, nil
}

// codexHookHash is the hash Codex trusts a PreToolUse command hook with no
// matcher by: its normalized identity (the event's key, and the group with
// the handler's type, command, timeout and async) as canonical JSON.
func codexHookHash(command string, timeout int) (string, error) {
	// The fields in the order of their names: canonical JSON sorts keys.
	type handler struct {
		Async   bool   `json:"async"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
		Type    string `json:"type"`
	}
	identity := struct {
		EventName string    `json:"event_name"`
		Hooks     []handler `json:"hooks"`
	}{"pre_tool_use", []handler{{Command: command, Timeout: timeout, Type: "command"}}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
