package main

import (
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Terminal sequences a settings file or a hook can carry: an OSC 52 write of
// the clipboard ("echo pwned", base64) and a screen clear.
const (
	osc52       = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
	clearScreen = "\x1b[2J"
)

// requireNoTerminalSequences fails if text could act on a terminal instead
// of being read: ESC, BEL, a carriage return, any other C0 or C1 control
// (as a character or a lone byte) but newlines and tabs, a bidi override or
// a zero-width character.
func requireNoTerminalSequences(t *testing.T, what, text string) {
	t.Helper()
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		bad := (r == utf8.RuneError && size == 1) || r == '\r' || (unicode.IsControl(r) && r != '\n' && r != '\t') ||
			unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
		require.False(t, bad, "%s has %U at byte %d: %q", what, r, i, text[max(0, i-40):min(len(text), i+40)])
		i += size
	}
}

// TestHumanOutputEscapesTerminalSequences: a repository's settings file and
// its hook put OSC 52 and screen-clear sequences in a command, a status
// message, a cwd, a hook's reason, warning and stderr, and the tool input
// carries them too. `wavehooks run --explain`, `run`'s diagnostics and
// `lint`'s text show them escaped (\u001b…), never raw; `run`'s result and
// `lint --format json` stay JSON that decodes to the text as it was.
func TestHumanOutputEscapesTerminalSequences(t *testing.T) {
	// The hook reads its stdin with jq and answers a deny whose reason and systemMessage hold the sequences
	// (jq's \u001b), and writes them raw to stderr; the command's comment holds them raw too.
	hook := `jq -c '{systemMessage: "note \u001b]52;c;aGk=\u0007\u001b[2J", hookSpecificOutput: {hookEventName: "PreToolUse",` +
		` permissionDecision: "deny", permissionDecisionReason: ("no " + .tool_input.command + " \u001b[2J")}}'; ` +
		`printf 'stderr \033]52;c;aGk=\007\033[2J\r\n' >&2 # ` + osc52 + clearScreen
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{
			"type": "command", "command": hook, "statusMessage": osc52 + clearScreen + " checking\u202e"}}}},
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": "true", "cwd": "sub" + osc52 + "dir"}}}},
	}})
	require.NoError(t, err)
	env := newCLIEnv(t, string(settings))
	stdin := `{"session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls \u001b]52;c;aGk=\u0007"}}`

	t.Run("run --explain", func(t *testing.T) {
		out, stderr, code := env.run(t, stdin, "run", "PreToolUse", "--explain")
		require.Equal(t, 0, code, stderr)
		requireNoTerminalSequences(t, "stdout", out)
		requireNoTerminalSequences(t, "stderr", stderr)
		// What the text says is still shown, escaped.
		require.Contains(t, out, `status message: \u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J checking\u202e`)
		require.Contains(t, out, `# \u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J`, "the command")
		require.Contains(t, out, `no ls \u001b]52;c;aGk=\u0007 \u001b[2J`, "the reason")
		require.Contains(t, out, `stderr \u001b]52;c;aGk=\u0007\u001b[2J\r`, "the hook's stderr")
		require.Contains(t, stderr, `cwd `, "the cwd diagnostic")
		require.Contains(t, stderr, `sub\u001b]52;c;ZWNobyBwd25lZA==\u0007dir`, "the cwd diagnostic, escaped")
	})

	t.Run("run's result stays JSON", func(t *testing.T) {
		out, stderr, code := env.run(t, stdin, "run", "PreToolUse")
		require.Equal(t, 0, code, stderr)
		require.NotContains(t, out, "\x1b", "JSON escapes control characters")
		requireNoTerminalSequences(t, "stderr", stderr)
		var r struct {
			Permission, Reason string
		}
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		require.Equal(t, "deny", r.Permission)
		require.Equal(t, "no ls \x1b]52;c;aGk=\x07 "+clearScreen, r.Reason, "the JSON carries the text as it is")
	})

	t.Run("lint", func(t *testing.T) {
		out, stderr, code := env.run(t, "", "lint")
		require.Equal(t, 0, code, stderr)
		requireNoTerminalSequences(t, "stdout", out)
		requireNoTerminalSequences(t, "stderr", stderr)
		require.Contains(t, out, `sub\u001b]52;c;ZWNobyBwd25lZA==\u0007dir`)

		out, _, _ = env.run(t, "", "lint", "--format", "json")
		var diags []struct{ Message string }
		require.NoError(t, json.Unmarshal([]byte(out), &diags), out)
		require.NotEmpty(t, diags)
		require.Contains(t, diags[0].Message, "sub"+osc52+"dir", "the JSON carries the text as it is")
	})
}
