package hooks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// jsonAnswers configures one command hook per JSON answer on ev; each hook
// reads its stdin and prints its answer.
func jsonAnswers(ev event.Event, outs ...string) string {
	var hs []any
	for _, o := range outs {
		b, _ := json.Marshal(o)
		hs = append(hs, map[string]any{"type": "command", "command": "jq -r .hook_event_name >/dev/null; printf '%s' " + shellQuote(string(b)) + " | jq -r ."})
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{string(ev): []any{map[string]any{"hooks": hs}}}})
	return string(b)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestLaterAnswerFields: permissionDecision "defer", suppressOriginalPrompt,
// sessionTitle on UserPromptSubmit, classifierContext, permissionDisplay
// and terminalSequence are read on their events, ignored (and said so)
// elsewhere, and combined across hooks.
func TestLaterAnswerFields(t *testing.T) {
	osc := "\x1b]777;notify;Claude;done\x07"
	cases := []struct {
		name  string
		event event.Event
		outs  []string
		check func(t *testing.T, r hooks.Result)
	}{{
		name: "defer beats ask and allow", event: event.PreToolUse,
		outs: []string{
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}`,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}`},
		check: func(t *testing.T, r hooks.Result) { require.Equal(t, hooks.PermissionDefer, r.Permission) },
	}, {
		name: "deny beats defer", event: event.PreToolUse,
		outs: []string{
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}`,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, hooks.PermissionDeny, r.Permission)
			require.Equal(t, "no", r.Reason)
		},
	}, {
		name: "suppressOriginalPrompt", event: event.UserPromptSubmit,
		outs: []string{`{"decision": "block", "reason": "secrets in the prompt", "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": true}}`},
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.True(t, r.SuppressOriginalPrompt)
			require.Contains(t, r.Runs[0].Decision, "suppress original prompt")
		},
	}, {
		name: "suppressOriginalPrompt is not PostToolUse's", event: event.PostToolUse,
		outs: []string{`{"hookSpecificOutput": {"hookEventName": "PostToolUse", "suppressOriginalPrompt": true}}`},
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.SuppressOriginalPrompt)
			require.Contains(t, r.Runs[0].Decision, "ignored suppressOriginalPrompt: PostToolUse does not read it")
		},
	}, {
		name: "sessionTitle on UserPromptSubmit: the last wins", event: event.UserPromptSubmit,
		outs: []string{
			`{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "sessionTitle": "Parser work"}}`,
			`{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "sessionTitle": "Fix the parser"}}`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, "Fix the parser", r.SessionTitle)
			require.Equal(t, []string{"several UserPromptSubmit hooks answered the session title differently; the last one in configuration order was used"}, r.Warnings)
		},
	}, {
		name: "classifierContext: every hook's", event: event.PostToolUse,
		outs: []string{
			`{"hookSpecificOutput": {"hookEventName": "PostToolUse", "classifierContext": "ran against staging"}}`,
			`{"hookSpecificOutput": {"hookEventName": "PostToolUse", "classifierContext": "read-only query"}}`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, "ran against staging\nread-only query", r.ClassifierContext)
			require.Empty(t, r.AdditionalContext, "not for the model")
		},
	}, {
		name: "permissionDisplay: the last wins", event: event.PreToolUse,
		outs: []string{
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDisplay": {"title": "Deploy?"}}}`,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDisplay": {"title": "Deploy to prod?"}}}`},
		check: func(t *testing.T, r hooks.Result) {
			require.JSONEq(t, `{"title": "Deploy to prod?"}`, string(r.PermissionDisplay))
			require.Len(t, r.Warnings, 1)
			require.Contains(t, r.Warnings[0], "the permission display differently")
		},
	}, {
		name: "terminalSequence", event: event.Notification,
		outs: []string{`{"terminalSequence": "` + jsonEscape(osc) + `"}`, `{"terminalSequence": "\u0007"}`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{osc, "\a"}, r.TerminalSequences)
			require.Empty(t, r.Warnings)
		},
	}, {
		name: "terminalSequence on an event that discards the output", event: event.StopFailure,
		outs: []string{`{"terminalSequence": "` + jsonEscape(osc) + `", "systemMessage": "dropped"}`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{osc}, r.TerminalSequences, "Claude Code still writes it")
			require.Empty(t, r.Warnings)
		},
	}}
	refused := map[string]string{
		"CSI colour":     "\x1b[31mred\x1b[0m",
		"OSC 52":         "\x1b]52;c;cm0gLXJmIH4=\x07",
		"OSC 8 link":     "\x1b]8;;https://example.com\x07x\x1b]8;;\x07",
		"unterminated":   "\x1b]0;title",
		"text and a BEL": "hello\a",
	}
	for name, seq := range refused {
		cases = append(cases, struct {
			name  string
			event event.Event
			outs  []string
			check func(t *testing.T, r hooks.Result)
		}{name: "terminalSequence refused: " + name, event: event.Notification,
			outs: []string{`{"terminalSequence": "` + jsonEscape(seq) + `", "systemMessage": "still read"}`},
			check: func(t *testing.T, r hooks.Result) {
				require.Nil(t, r.TerminalSequences)
				require.Len(t, r.Warnings, 2)
				require.Contains(t, r.Warnings[0], "terminalSequence ignored: ")
				require.Equal(t, "still read", r.Warnings[1], "the rest of the answer counts")
			}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, jsonAnswers(c.event, c.outs...))
			in := input(c.event, root)
			res := e.Fire(context.Background(), in)
			for _, r := range res.Runs {
				require.True(t, r.Ran, r.Skipped)
			}
			c.check(t, res)
		})
	}
}

// TestExplainShowsEscapesNotControls: what a hook printed reaches
// --explain escaped, so that it cannot drive the reader's terminal.
func TestExplainShowsEscapesNotControls(t *testing.T) {
	e, root := setup(t, one(event.Notification, `cat >/dev/null; printf '\033]52;c;cm0gLXJmIH4=\007\033[2J' >&2; exit 1`))
	res := e.Fire(context.Background(), input(event.Notification, root))
	out := hooks.Explain(hooks.NewEventRun("s", "", &res))
	require.NotContains(t, out, "\x1b")
	require.NotContains(t, out, "\a")
	require.Contains(t, out, `\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J`, "escaped as internal/safetext escapes every human output")
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestUpdatedPrompt: hookSpecificOutput.updatedPrompt (wavehooks' own
// extension) rewrites UserPromptSubmit's prompt; the last hook wins with a
// warning when hooks differ, a block beats it, an empty one is rejected,
// and other events ignore it with a note in the run history.
func TestUpdatedPrompt(t *testing.T) {
	rewrite := func(p string) string {
		return `{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "updatedPrompt": "` + p + `"}}`
	}
	cases := []struct {
		name   string
		event  event.Event
		outs   []string
		prompt string
		warn   string
		note   string
	}{
		{name: "one hook rewrites", event: event.UserPromptSubmit, outs: []string{rewrite("be brief: fix it")}, prompt: "be brief: fix it"},
		{name: "the same rewrite twice is no conflict", event: event.UserPromptSubmit, outs: []string{rewrite("a"), rewrite("a") + " "}, prompt: "a"},
		{name: "the last of two different rewrites wins", event: event.UserPromptSubmit, outs: []string{rewrite("first"), `{}`, rewrite("second")},
			prompt: "second", warn: "several UserPromptSubmit hooks answered the rewritten prompt differently; the last one in configuration order was used"},
		{name: "a block beats a rewrite", event: event.UserPromptSubmit,
			outs: []string{rewrite("fine"), `{"decision": "block", "reason": "no"}`}, warn: "updatedPrompt ignored: a hook blocked the prompt"},
		{name: "an empty rewrite is rejected", event: event.UserPromptSubmit, outs: []string{rewrite(" ")},
			warn: "hook output ignored: updatedPrompt must not be empty"},
		{name: "PreToolUse does not read it", event: event.PreToolUse,
			outs: []string{`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedPrompt": "x"}}`},
			note: "ignored updatedPrompt: PreToolUse does not read it"},
	}
	doc, _ := settings.EventDoc(event.UserPromptSubmit)
	require.Contains(t, doc, "`updatedPrompt` (wavehooks' own extension", "lint's hover says Claude Code does not read it")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, jsonAnswers(c.event, c.outs...))
			res := e.Fire(context.Background(), input(c.event, root))
			require.Equal(t, c.prompt, res.UpdatedPrompt)
			if c.warn == "" {
				require.Empty(t, res.Warnings)
			} else {
				require.Len(t, res.Warnings, 1)
				require.Contains(t, res.Warnings[0], c.warn)
			}
			if c.note != "" {
				require.Contains(t, res.Runs[0].Decision, c.note)
			}
		})
	}
}
