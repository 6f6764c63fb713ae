package flow_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// state is a session as the rules see it, written out as plain values: the
// point of package flow is that no file, process or editor is needed to
// know what an event does.
type state struct {
	root, cwd, last string
	stops           int
	subagent        map[string]int
}

func (s state) Root() string                        { return s.root }
func (s state) Cwd() string                         { return s.cwd }
func (s state) StopStreak() int                     { return s.stops }
func (s state) SubagentStopStreak(agent string) int { return s.subagent[agent] }
func (s state) LastAssistantText() string           { return s.last }

func ok(ev event.Event) hooks.Result { return hooks.Result{Event: ev, Continue: true} }

func tool(id string) flow.ToolCall { return flow.ToolCall{ID: id} }

var bash = event.Input{Event: event.PreToolUse, ToolName: "Bash", ToolUseID: "t1", ToolInput: json.RawMessage(`{"command":"ls"}`)}

// Each case is one rule of docs/hooks.md or docs/parity.md: the hooks'
// combined answer in, what the agent is told and what the conversation
// gets out.
func TestAfter(t *testing.T) {
	withRes := func(ev event.Event, f func(*hooks.Result)) hooks.Result {
		r := ok(ev)
		f(&r)
		return r
	}
	cases := []struct {
		name    string
		in      event.Input
		res     hooks.Result
		st      state
		facts   flow.Facts
		check   func(t *testing.T, a flow.Answer)
		changes []flow.Change
	}{{
		name: "PreToolUse without an opinion allows the call as it came",
		in:   bash, res: ok(event.PreToolUse),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "allow", a.Permission)
			require.Equal(t, "none", a.Decision)
			require.JSONEq(t, `{"command":"ls"}`, string(a.ToolInput))
		},
	}, {
		name: "PreToolUse updatedInput rewrites the tool block's input",
		in:   bash,
		res: withRes(event.PreToolUse, func(r *hooks.Result) {
			r.Permission, r.UpdatedInput = hooks.PermissionAllow, json.RawMessage(`{"command":"ls -a"}`)
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "allow", a.Permission)
			require.JSONEq(t, `{"command":"ls -a"}`, string(a.ToolInput))
		},
		changes: []flow.Change{{Kind: flow.SetToolInput, Tool: flow.ToolCall{ID: "t1", Input: json.RawMessage(`{"command":"ls -a"}`)}}},
	}, {
		name: "PreToolUse deny puts the reason in the tool block as a failed result",
		in:   bash,
		res:  withRes(event.PreToolUse, func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionDeny, "no ls" }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "deny", a.Permission)
			require.Equal(t, "no ls", a.Reason)
			require.True(t, a.Continue, "a hook's deny refuses the call, not the turn")
		},
		changes: []flow.Change{{Kind: flow.SetToolResult, Tool: tool("t1"), Text: "no ls", Refusal: flow.HookBlockedTool}},
	}, {
		name: "PreToolUse ask with nobody to ask is a deny that says so",
		in:   bash,
		res:  withRes(event.PreToolUse, func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionAsk, "risky" }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "deny", a.Permission)
			require.Equal(t, "ask", a.Decision)
			require.False(t, a.Asked)
		},
		changes: []flow.Change{{Kind: flow.SetToolResult, Tool: tool("t1"),
			Text: "permission to run Bash was needed and no one could be asked: risky", Refusal: flow.HookBlockedTool}},
	}, {
		name: "PreToolUse ask the user allows runs the call",
		in:   bash, facts: flow.Facts{Ask: flow.UserAllowed},
		res: withRes(event.PreToolUse, func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionAsk, "risky" }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "allow", a.Permission)
			require.True(t, a.Asked)
			require.True(t, a.Continue)
		},
	}, {
		name: "PreToolUse ask put to a prompt outside the session stays ask, with no result in its block",
		in:   bash, facts: flow.Facts{Ask: flow.AskedElsewhere},
		res: withRes(event.PreToolUse, func(r *hooks.Result) {
			r.Permission, r.Reason, r.UpdatedInput = hooks.PermissionAsk, "risky", json.RawMessage(`{"command":"ls -l"}`)
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "ask", a.Permission)
			require.Equal(t, "ask", a.Decision)
			require.Equal(t, "risky", a.Reason)
			require.False(t, a.Asked, "nobody has answered yet")
			require.True(t, a.Continue)
			require.JSONEq(t, `{"command":"ls -l"}`, string(a.ToolInput), "the call as it would run")
		},
		changes: []flow.Change{{Kind: flow.SetToolInput, Tool: flow.ToolCall{ID: "t1", Input: json.RawMessage(`{"command":"ls -l"}`)}}},
	}, {
		name: "PreToolUse ask the user denies also ends the turn",
		in:   bash, facts: flow.Facts{Ask: flow.UserDenied},
		res: withRes(event.PreToolUse, func(r *hooks.Result) {
			r.Permission, r.AdditionalContext = hooks.PermissionAsk, []string{"never seen"}
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "deny", a.Permission)
			require.True(t, a.Asked)
			require.False(t, a.Continue)
			require.Equal(t, "The user denied permission to run Bash.", a.StopReason)
			require.Empty(t, a.AdditionalContext, "a stopped turn gives the model no context")
		},
		changes: []flow.Change{{Kind: flow.SetToolResult, Tool: tool("t1"),
			Text: "The user denied permission to run Bash.", Refusal: flow.UserDeniedTool}},
	}, {
		name: "PreToolUse continue:false denies, whatever the permission, and shows why",
		in:   bash,
		res: withRes(event.PreToolUse, func(r *hooks.Result) {
			r.Continue, r.StopReason, r.Permission = false, "halt", hooks.PermissionAllow
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "deny", a.Permission)
			require.Equal(t, "deny", a.Decision)
			require.False(t, a.Continue)
			require.Equal(t, "halt", a.StopReason)
		},
		changes: []flow.Change{
			{Kind: flow.SetToolResult, Tool: tool("t1"), Text: "stopped by hook: halt", Refusal: flow.HookBlockedTool},
			{Kind: flow.Error, Text: "stopped by hook: halt"},
		},
	}, {
		name: "async output is delivered first, then warnings and errors, then context",
		in:   bash,
		res: withRes(event.PreToolUse, func(r *hooks.Result) {
			r.Delivered = []hooks.Delivery{{Event: event.PostToolUse, Hook: "lint.sh", Content: "lint done"}}
			r.Warnings, r.Errors, r.AdditionalContext = []string{"careful"}, []string{"broke"}, []string{"ctx"}
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, []string{"lint done", "ctx"}, a.AdditionalContext)
		},
		changes: []flow.Change{
			{Kind: flow.Deliver, Delivered: []hooks.Delivery{{Event: event.PostToolUse, Hook: "lint.sh", Content: "lint done"}}},
			{Kind: flow.Warn, Text: "careful"}, {Kind: flow.Error, Text: "broke"},
			{Kind: flow.Context, Event: event.PreToolUse, Texts: []string{"ctx"}},
		},
	}, {
		name: "PostToolUse updatedToolOutput replaces what the model sees, and a block is feedback",
		in: event.Input{Event: event.PostToolUse, ToolName: "Read", ToolUseID: "t2",
			ToolResponse: json.RawMessage(`{"content":"secret"}`)},
		res: withRes(event.PostToolUse, func(r *hooks.Result) {
			r.UpdatedToolOutput, r.Blocked, r.Reason = json.RawMessage(`{"content":"[redacted]","success":false}`), true, "redacted a key"
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.JSONEq(t, `{"content":"[redacted]","success":false}`, string(a.ToolResponse))
			require.True(t, a.Blocked)
		},
		changes: []flow.Change{
			{Kind: flow.SetToolResult, Tool: tool("t2"), Text: "[redacted]", Success: false},
			{Kind: flow.UserText, Text: "redacted a key"},
		},
	}, {
		name: "UserPromptSubmit block erases the prompt and tells the user only",
		in:   event.Input{Event: event.UserPromptSubmit, Prompt: "rm -rf /"},
		res: withRes(event.UserPromptSubmit, func(r *hooks.Result) {
			r.Blocked, r.Reason, r.AdditionalContext = true, "not that", []string{"dropped"}
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
			require.Empty(t, a.AdditionalContext)
		},
		changes: []flow.Change{{Kind: flow.ErasePrompt}, {Kind: flow.Error, Text: "not that"}},
	}, {
		name: "UserPromptSubmit plain stdout is a user message, additionalContext hook blocks",
		in:   event.Input{Event: event.UserPromptSubmit, Prompt: "hi"},
		res: withRes(event.UserPromptSubmit, func(r *hooks.Result) {
			r.Context, r.AdditionalContext = []string{"date: today"}, []string{"branch: main"}
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, []string{"date: today", "branch: main"}, a.AdditionalContext)
		},
		changes: []flow.Change{{Kind: flow.UserText, Text: "date: today"},
			{Kind: flow.Context, Event: event.UserPromptSubmit, Texts: []string{"branch: main"}}},
	}, {
		name: "SessionStart's plain stdout and additionalContext are all hook blocks",
		in:   event.Input{Event: event.SessionStart, Source: "startup"},
		res: withRes(event.SessionStart, func(r *hooks.Result) {
			r.Context, r.AdditionalContext = []string{"a"}, []string{"b"}
		}),
		changes: []flow.Change{{Kind: flow.Context, Event: event.SessionStart, Texts: []string{"a", "b"}}},
	}, {
		name: "SessionStart's watchPaths are returned for FileChanged to watch",
		in:   event.Input{Event: event.SessionStart, Source: "startup"},
		res:  withRes(event.SessionStart, func(r *hooks.Result) { r.WatchPaths = []string{"/p/.env"} }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, []string{"/p/.env"}, a.WatchPaths)
		},
	}, {
		name: "SessionStart's title is ignored on compact, as in Claude Code; the rest is passed on",
		in:   event.Input{Event: event.SessionStart, Source: "compact"},
		res: withRes(event.SessionStart, func(r *hooks.Result) {
			r.SessionTitle, r.ReloadSkills, r.InitialUserMessage = "t", true, "go"
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Empty(t, a.SessionTitle)
			require.True(t, a.ReloadSkills)
			require.Equal(t, "go", a.InitialUserMessage)
		},
	}, {
		name: "SessionStart stopped by a hook starts no first turn",
		in:   event.Input{Event: event.SessionStart, Source: "startup"},
		res: withRes(event.SessionStart, func(r *hooks.Result) {
			r.Continue, r.StopReason, r.SessionTitle, r.InitialUserMessage = false, "no", "t", "go"
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "t", a.SessionTitle)
			require.Empty(t, a.InitialUserMessage)
		},
		changes: []flow.Change{{Kind: flow.Error, Text: "stopped by hook: no"}},
	}, {
		name: "Stop block sends the agent on and counts the streak",
		in:   event.Input{Event: event.Stop}, st: state{stops: 2},
		res: withRes(event.Stop, func(r *hooks.Result) { r.Blocked, r.Reason = true, "tests fail" }),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
			require.Equal(t, "tests fail", a.Reason)
		},
		changes: []flow.Change{{Kind: flow.SetStopStreak, N: 3}, {Kind: flow.UserText, Text: "tests fail"}},
	}, {
		name: "Stop additionalContext alone also sends the agent on",
		in:   event.Input{Event: event.Stop},
		res:  withRes(event.Stop, func(r *hooks.Result) { r.AdditionalContext = []string{"one more", "thing"} }),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
			require.Equal(t, "one more\nthing", a.Reason)
		},
		changes: []flow.Change{{Kind: flow.SetStopStreak, N: 1},
			{Kind: flow.Context, Event: event.Stop, Texts: []string{"one more", "thing"}}},
	}, {
		name: "Stop blocked too often in a row is let stop, with a warning",
		in:   event.Input{Event: event.Stop}, st: state{stops: flow.MaxStopStreak},
		res: withRes(event.Stop, func(r *hooks.Result) { r.Blocked, r.Reason = true, "again" }),
		check: func(t *testing.T, a flow.Answer) {
			require.False(t, a.Blocked)
		},
		changes: []flow.Change{{Kind: flow.SetStopStreak, N: 0}, {Kind: flow.Warn,
			Text: "Stop hooks blocked stopping 8 times in a row; this block was not honoured and the agent stops: again"}},
	}, {
		name: "SubagentStop counts each agent's streak apart and adds nothing",
		in:   event.Input{Event: event.SubagentStop, Extra: map[string]json.RawMessage{"agent_id": json.RawMessage(`"a2"`)}},
		st:   state{subagent: map[string]int{"a1": flow.MaxStopStreak, "a2": 1}},
		res: withRes(event.SubagentStop, func(r *hooks.Result) {
			r.Blocked, r.Reason, r.AdditionalContext = true, "keep going", []string{"for the subagent"}
		}),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
			require.Equal(t, []string{"for the subagent"}, a.AdditionalContext)
		},
		changes: []flow.Change{{Kind: flow.SetSubagentStopStreak, Agent: "a2", N: 2}},
	}, {
		name: "SessionEnd keeps what hooks say to the user and cannot stop anything",
		in:   event.Input{Event: event.SessionEnd, Reason: "exit"},
		res: withRes(event.SessionEnd, func(r *hooks.Result) {
			r.Continue, r.StopReason, r.Warnings = false, "ignored", []string{"bye"}
		}),
		changes: []flow.Change{{Kind: flow.Warn, Text: "bye"}},
	}, {
		name: "PermissionRequest deny is recorded in the tool block",
		in:   event.Input{Event: event.PermissionRequest, ToolName: "Bash", ToolUseID: "t3"},
		res:  withRes(event.PermissionRequest, func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionDeny, "no" }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "deny", a.Permission)
		},
		changes: []flow.Change{{Kind: flow.SetToolResult, Tool: tool("t3"), Text: "no", Refusal: flow.HookBlockedTool}},
	}, {
		name: "PermissionRequest without a decision leaves the host to ask",
		in:   event.Input{Event: event.PermissionRequest, ToolName: "Bash", ToolUseID: "t3"},
		res:  ok(event.PermissionRequest),
		check: func(t *testing.T, a flow.Answer) {
			require.Empty(t, a.Permission)
		},
	}, {
		name: "PreCompact block stops the compaction and tells the user",
		in:   event.Input{Event: event.PreCompact},
		res:  withRes(event.PreCompact, func(r *hooks.Result) { r.Blocked, r.Reason = true, "not now" }),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
		},
		changes: []flow.Change{{Kind: flow.Error, Text: "compaction blocked by a PreCompact hook: not now"}},
	}, {
		name: "ConfigChange from policy settings cannot be blocked",
		in:   event.Input{Event: event.ConfigChange, Source: "policy_settings"},
		res:  withRes(event.ConfigChange, func(r *hooks.Result) { r.Blocked, r.Reason = true, "no" }),
		check: func(t *testing.T, a flow.Answer) {
			require.False(t, a.Blocked)
		},
	}, {
		name: "ConfigChange from user settings can",
		in:   event.Input{Event: event.ConfigChange, Source: "user_settings"},
		res:  withRes(event.ConfigChange, func(r *hooks.Result) { r.Blocked, r.Reason = true, "no" }),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
			require.Equal(t, "no", a.Reason)
		},
	}, {
		name: "MessageDisplay shows the delta, or a hook's replacement, and touches nothing",
		in:   event.Input{Event: event.MessageDisplay, Extra: map[string]json.RawMessage{"delta": json.RawMessage(`"hello"`)}},
		res:  withRes(event.MessageDisplay, func(r *hooks.Result) { r.Warnings = []string{"not shown"} }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "hello", *a.DisplayContent)
		},
	}, {
		name: "WorktreeCreate takes the path as resolved",
		in:   event.Input{Event: event.WorktreeCreate}, facts: flow.Facts{WorktreePath: "/p/wt"},
		res: withRes(event.WorktreeCreate, func(r *hooks.Result) { r.WorktreePath = "wt" }),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "/p/wt", a.WorktreePath)
			require.False(t, a.Blocked)
		},
	}, {
		name: "WorktreeCreate fails on a refused path",
		in:   event.Input{Event: event.WorktreeCreate}, facts: flow.Facts{WorktreeErr: errors.New("not a directory")},
		res: withRes(event.WorktreeCreate, func(r *hooks.Result) { r.WorktreePath = "wt" }),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Blocked)
			require.Empty(t, a.WorktreePath)
		},
		changes: []flow.Change{{Kind: flow.Error, Text: "worktree creation failed: not a directory"}},
	}, {
		name: "PermissionDenied retry tells the model to retry only a call the user asked for",
		in:   event.Input{Event: event.PermissionDenied, ToolName: "Bash", ToolUseID: "t4"},
		res:  withRes(event.PermissionDenied, func(r *hooks.Result) { r.Retry = true }),
		check: func(t *testing.T, a flow.Answer) {
			require.True(t, a.Retry)
		},
		changes: []flow.Change{{Kind: flow.Context, Event: event.PermissionDenied,
			Texts: []string{"The denied Bash call (t4) may be retried once, through the same permission check, and only if the user asked for what it does. " +
				"If they did, make it again now; if they did not, leave it, tell them that you made this call without being asked and that it was refused before it ran, " +
				"and go on with what they did ask for."}}},
	}, {
		name: "ElicitationResult keeps the user's answer and drops content unless accepted",
		in: event.Input{Event: event.ElicitationResult, Extra: map[string]json.RawMessage{
			"action": json.RawMessage(`"decline"`), "content": json.RawMessage(`{"x":1}`)}},
		res: ok(event.ElicitationResult),
		check: func(t *testing.T, a flow.Answer) {
			require.Equal(t, "decline", a.Action)
			require.Nil(t, a.Content)
		},
	}, {
		name: "DirectoryAdded context reaches the model only when the user added it",
		in:   event.Input{Event: event.DirectoryAdded, Source: "workspace_folder"},
		res:  withRes(event.DirectoryAdded, func(r *hooks.Result) { r.AdditionalContext = []string{"new dir"} }),
		check: func(t *testing.T, a flow.Answer) {
			require.Empty(t, a.AdditionalContext)
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eff := flow.After(tc.in, tc.res, tc.st, tc.facts)
			if tc.check != nil {
				tc.check(t, eff.Answer)
			}
			require.Equal(t, tc.changes, eff.Changes)
			require.NotNil(t, eff.AdditionalContext)
			require.NotNil(t, eff.Env)
		})
	}
}

// Every event has rules: a quiet answer (no hook had anything to say)
// changes nothing and lets the agent go on.
func TestAfterQuietAnswerOfEveryEvent(t *testing.T) {
	for _, ev := range event.Events() {
		in := event.Input{Event: ev, ToolName: "Bash", ToolUseID: "t1"}
		eff := flow.After(in, ok(ev), state{root: "/p"}, flow.Facts{})
		require.True(t, eff.Continue, ev)
		require.False(t, eff.Blocked, ev)
		changes := eff.Changes
		if ev == event.Stop {
			require.Equal(t, []flow.Change{{Kind: flow.SetStopStreak, N: 0}}, changes)
			continue
		}
		if ev == event.SubagentStop {
			require.Equal(t, []flow.Change{{Kind: flow.SetSubagentStopStreak, N: 0}}, changes)
			continue
		}
		require.Empty(t, changes, ev)
	}
}

func TestBefore(t *testing.T) {
	st := state{root: "/p", last: "done.", stops: 1, subagent: map[string]int{"a1": 1}}
	t.Run("UserPromptSubmit records the prompt and ends a stop streak", func(t *testing.T) {
		_, changes, err := flow.Before(event.Input{Event: event.UserPromptSubmit, Prompt: "hi"}, st)
		require.NoError(t, err)
		require.Equal(t, []flow.Change{{Kind: flow.AddPrompt, Text: "hi"}, {Kind: flow.SetStopStreak}}, changes)
	})
	t.Run("PostToolUse records the call with its result", func(t *testing.T) {
		in := event.Input{Event: event.PostToolUse, ToolName: "Bash", ToolUseID: "t1",
			ToolResponse: json.RawMessage(`{"output":"x","success":false}`)}
		_, changes, err := flow.Before(in, st)
		require.NoError(t, err)
		require.Equal(t, []flow.Change{
			{Kind: flow.RecordTool, Tool: flow.ToolCall{ID: "t1", Name: "Bash"}},
			{Kind: flow.SetToolResult, Tool: tool("t1"), Text: "x", Success: false},
		}, changes)
	})
	t.Run("Stop learns whether the last stop was blocked, and the last reply", func(t *testing.T) {
		in, _, err := flow.Before(event.Input{Event: event.Stop}, st)
		require.NoError(t, err)
		require.True(t, in.StopHookActive)
		require.Equal(t, "done.", in.LastAssistantMessage)
	})
	t.Run("SubagentStop is active per agent", func(t *testing.T) {
		for agent, active := range map[string]bool{"a1": true, "a2": false} {
			raw, _ := json.Marshal(agent)
			in, _, err := flow.Before(event.Input{Event: event.SubagentStop, Extra: map[string]json.RawMessage{"agent_id": raw}}, st)
			require.NoError(t, err)
			require.Equal(t, active, in.StopHookActive, agent)
		}
	})
	t.Run("CwdChanged fills old_cwd and moves the session", func(t *testing.T) {
		in, changes, err := flow.Before(event.Input{Event: event.CwdChanged,
			Extra: map[string]json.RawMessage{"new_cwd": json.RawMessage(`"/p/sub/../src"`)}}, st)
		require.NoError(t, err)
		require.JSONEq(t, `"/p"`, string(in.Extra["old_cwd"]))
		require.Equal(t, []flow.Change{{Kind: flow.SetCwd, Text: "/p/src"}}, changes)
	})
	t.Run("CwdChanged refuses a relative new_cwd and changes nothing", func(t *testing.T) {
		_, changes, err := flow.Before(event.Input{Event: event.CwdChanged,
			Extra: map[string]json.RawMessage{"new_cwd": json.RawMessage(`"src"`)}}, st)
		var invalid *flow.InvalidError
		require.ErrorAs(t, err, &invalid)
		require.Equal(t, "input.new_cwd", invalid.Field)
		require.Empty(t, changes)
	})
}

func TestQuestionsFor(t *testing.T) {
	askRes := ok(event.PreToolUse)
	askRes.Permission, askRes.Reason, askRes.UpdatedInput = hooks.PermissionAsk, "why", json.RawMessage(`{"command":"ls -a"}`)
	q := flow.QuestionsFor(bash, askRes)
	require.Equal(t, &flow.AskQuestion{ToolUseID: "t1", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls -a"}`), Reason: "why"}, q.Ask,
		"the user is asked about the call as it would run")

	askRes.Continue = false
	require.Nil(t, flow.QuestionsFor(bash, askRes).Ask, "a hook that stops the agent leaves nothing to ask")

	wt := ok(event.WorktreeCreate)
	wt.WorktreePath = "wt"
	require.Equal(t, "wt", flow.QuestionsFor(event.Input{Event: event.WorktreeCreate}, wt).Worktree)
}

func TestCheckToolCall(t *testing.T) {
	cases := []struct {
		id, name, input string
		field           string
	}{
		{"", "Bash", `{}`, "input.tool_use_id"},
		{"t1", "", `{}`, "input.tool_name"},
		{"t1", "Bash", `[1]`, "input.tool_input"},
		{"t1", "Bash", `{"a":`, "input.tool_input"},
	}
	for _, tc := range cases {
		_, err := flow.CheckToolCall(flow.StdinToolCall, tc.id, tc.name, json.RawMessage(tc.input))
		var invalid *flow.InvalidError
		require.ErrorAs(t, err, &invalid, tc)
		require.Equal(t, tc.field, invalid.Field)
	}
	in, err := flow.CheckToolCall(flow.TypedToolCall, "t1", "Bash", json.RawMessage("{ \"a\" : 1 }"))
	require.NoError(t, err)
	require.Equal(t, `{"a":1}`, string(in), "kept compact: a session file holds one message per line")
}
