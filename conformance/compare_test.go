//go:build linux

package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRequestTextsTellsTheChannels(t *testing.T) {
	body := `{"system":[{"type":"text","text":"sys TOK_S"}],"messages":[
		{"role":"user","content":[{"type":"text","text":"<system-reminder>TOK_C</system-reminder>"}]},
		{"role":"system","content":"TOK_SYSMSG"},
		{"role":"assistant","content":[{"type":"text","text":"[Warning] TOK_A"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"TOK_INPUT"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"TOK_E","is_error":true},
			{"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text":"TOK_R"}]}]}]}`
	obs := &Observation{Model: requestTexts([]byte(body))}
	for tok, want := range map[string]string{
		"TOK_S": ChannelSystemPrompt, "TOK_C": ChannelConversation, "TOK_SYSMSG": ChannelConversation,
		"TOK_A": ChannelAssistant, "TOK_E": ChannelToolError, "TOK_R": ChannelToolResult,
		"TOK_INPUT": ChannelAbsent, // the model's own tool call is not something it received
		"TOK_NONE":  ChannelAbsent,
	} {
		require.Equal(t, want, obs.ChannelOf(tok), tok)
	}
}

func TestDiffObjects(t *testing.T) {
	paths := strings.NewReplacer("/c/proj", "$PROJECT", "/w/proj", "$PROJECT")
	tests := []struct {
		name         string
		claude, wave string
		want         []Item
	}{
		{"same after paths", `{"session_id":"a","cwd":"/c/proj"}`, `{"session_id":"b","cwd":"/w/proj"}`, nil},
		{"missing and extra", `{"a":1,"prompt_id":"x","mode":"default"}`, `{"a":1,"z":2}`, []Item{
			{"E.prompt_id", "no `prompt_id`"}, {"E.mode", "no `mode` (Claude Code: \"default\")"}, {"E.z", "also `z`"}}},
		{"value", `{"a":true}`, `{"a":false}`, []Item{{"E.a", "`a`: Claude Code true, wavehooks false"}}},
		{"order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, []Item{{"E.order", "key order: Claude Code a, b; wavehooks b, a"}}},
		{"lists of objects, entry by entry", `{"calls":[{"id":"t1","r":"x"},{"id":"t2","r":"y"}]}`, `{"calls":[{"id":"t1","r":"x"},{"id":"t2","r":"z"}]}`,
			[]Item{{"E.calls[].r", "`r`: Claude Code \"y\", wavehooks \"z\""}}},
		{"lists of different lengths, whole", `{"calls":[{"id":"t1"}]}`, `{"calls":[]}`,
			[]Item{{"E.calls", "`calls`: Claude Code [{\"id\":\"t1\"}], wavehooks []"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffObjects("E.", json.RawMessage(tt.claude), json.RawMessage(tt.wave), paths, valueless)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestJudge(t *testing.T) {
	knownRows["demo / tools that ran"] = Known{Found, "demo"}
	knownItems["Demo.k"] = Known{Gap, "demo item"}
	defer delete(knownRows, "demo / tools that ran")
	defer delete(knownItems, "Demo.k")
	rows := []Row{
		{Scenario: "demo", Aspect: "tools that ran", Same: false, Detail: "x"},
		{Scenario: "demo", Aspect: "model calls", Same: false, Detail: "1 vs 2"},
		{Scenario: "demo", Aspect: "stdin", Items: []Item{{"Demo.k", "no `k`"}, {"Demo.other", "no `other`"}}},
		{Scenario: "other", Aspect: "tools that ran", Same: true},
	}
	knownRows["other / tools that ran"] = Known{Found, "gone"}
	defer delete(knownRows, "other / tools that ran")
	v := Judge(rows)
	require.Empty(t, v[0].Problem)
	require.Contains(t, v[1].Problem, "unexpected difference")
	require.Contains(t, v[2].Problem, `"Demo.other"`)
	require.NotContains(t, v[2].Problem, `"Demo.k"`)
	require.Contains(t, v[3].Problem, "now the same as Claude Code")
	require.Contains(t, StaleItems(v[:1]), "Demo.k")
}

func TestReplaceTable(t *testing.T) {
	doc := "intro\n" + TableBegin + "\nold\n" + TableEnd + "\nafter\n"
	table := TableBegin + "\nnew\n" + TableEnd + "\n"
	got, err := ReplaceTable(doc, table)
	require.NoError(t, err)
	require.Equal(t, "intro\n"+table+"after\n", got)
	require.Equal(t, table, CurrentTable(got))
	_, err = ReplaceTable("no markers", table)
	require.Error(t, err)
}

// The forms of a Stop hook's feedback as Claude Code 2.1.330 and 2.1.332
// sent them to the model (texts copied from the measured requests).
func TestCheckStopFeedbackFollowsTheRelease(t *testing.T) {
	const lead332 = "<system-reminder>\nThe text below is the output of a hook that the user, their organization or this environment set up. " +
		"Follow what the hook itself asks as their standing instruction, unless the user has said otherwise in this conversation.\n"
	s := &Scenario{Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: "TOK_X"}}}
	cases := []struct {
		version, text string
		ok            bool
	}{
		{"2.1.330", "Stop hook feedback:\nTOK_X", true},
		{"2.1.330", lead332 + "Stop hook feedback:\nTOK_X\n</system-reminder>", false},
		{"2.1.332", lead332 + "Stop hook feedback:\nTOK_X\n</system-reminder>", true},
		{"2.1.332", lead332 + "Stop hook feedback:\n[\"$CLAUDE_PROJECT_DIR\"/.hooks/stop.sh]: TOK_X\n\n</system-reminder>", true},
		{"2.1.331", "Stop hook feedback:\nTOK_X", false},
		{"2.1.332", "<system-reminder>\nStop hook feedback:\nTOK_X\n</system-reminder>", false}, // no lead sentence
		{"2.1.332", "<system-reminder>\nStop hook additional context: TOK_X\n</system-reminder>", true},
		{"2.1.330", "<system-reminder>\nStop hook additional context: TOK_X\n</system-reminder>", true},
		{"2.1.332", `Stop hook blocking error from command: "stop.sh": TOK_X`, true},
		{"2.1.332", "Something else: TOK_X", false},
	}
	for _, c := range cases {
		o := &Observation{Model: []ModelText{{ChannelConversation, c.text}}}
		err := CheckStopFeedback(c.version, s, o)
		if c.ok {
			require.NoError(t, err, "%s: %q", c.version, c.text)
		} else {
			require.Error(t, err, "%s: %q", c.version, c.text)
		}
	}
	require.True(t, versionAtLeast("2.1.332", "2.1.331"))
	require.True(t, versionAtLeast("2.1.331", "2.1.331"))
	require.False(t, versionAtLeast("2.1.330", "2.1.331"))
	require.True(t, versionAtLeast("2.2.0", "2.1.331"))
}

// A stdin row of a hook that ran on one side only is a difference, not
// "same": there was nothing to compare key by key.
func TestCompareStdinWithoutRunsDiffers(t *testing.T) {
	paths := strings.NewReplacer()
	one := []HookCall{{Stdin: json.RawMessage(`{"a":1}`)}}
	require.Equal(t, []Item{{"E.runs", "no stdin to compare: the hook ran 1× in Claude Code, 0× in wavehooks"}}, compareStdin("E", one, nil, paths))
	require.Equal(t, []Item{{"E.runs", "no stdin to compare: the hook ran 0× in Claude Code, 1× in wavehooks"}}, compareStdin("E", nil, one, paths))
	require.Empty(t, compareStdin("E", nil, nil, paths))
	require.Empty(t, compareStdin("E", one, one, paths))
}
