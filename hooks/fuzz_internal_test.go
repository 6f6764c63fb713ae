package hooks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// FuzzInterpret feeds arbitrary hook output (event, exit code, stdout,
// stderr) to the output parser and the combiner, the part of Engine.Fire
// after the process ran. Running a real process per input would make the
// fuzzer a thousand times slower; the process side has its own tests
// (engine_test.go, fault_test.go).
//
// interpret must never panic and must be deterministic; a verdict read from
// JSON must come from a valid JSON object on stdout; stdout that starts
// with '{' either decides or says why it did not; a deny or a block always
// has a reason; an updatedInput is a JSON object; and what combine injects
// into the conversation is capped.
//
//	go test -run '^$' -fuzz '^FuzzInterpret$' -fuzztime 30s ./hooks
func FuzzInterpret(f *testing.F) {
	f.Add(uint8(0), 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "")
	f.Add(uint8(1), 2, "", "feedback for the model")
	f.Add(uint8(2), 0, "extra context", "")
	f.Add(uint8(3), 0, `{"decision":"block","reason":"go on"}`, "")
	f.Add(uint8(0), 0, `{"decision":"approve","reason":"fine"}`, "")
	f.Add(uint8(0), 0, `{"continue":false,"stopReason":"halt","systemMessage":"warn"}`, "")
	f.Add(uint8(0), 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`, "")
	f.Add(uint8(0), 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":[1]}}`, "")
	f.Add(uint8(2), 0, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}`, "")
	f.Add(uint8(2), 0, `{"decision":"block"}`, "")
	f.Add(uint8(0), 1, `{"continue":"no"}`, "oops")
	f.Add(uint8(0), 0, `{} {}`, "")
	f.Add(uint8(0), 0, "{\"systemMessage\":\"\xff\xfe\"}", "\xc3")
	f.Add(uint8(4), 127, "", "sh: nope: not found")
	f.Add(uint8(5), 126, "", "")
	f.Add(uint8(2), 0, strings.Repeat("é", MaxInjectedText+1), "")
	f.Add(uint8(6), -1, `{"hookSpecificOutput":null}`, "")
	f.Add(uint8(0), 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, "")
	f.Add(uint8(0), 2, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "no")
	f.Add(uint8(0), 0, `{"HOOKSPECIFICOUTPUT":{"PERMISSIONDECISION":"deny"}}`, "")
	f.Add(uint8(3), 0, `{"Continue":false,"continue":true}`, "")
	f.Fuzz(func(t *testing.T, n uint8, exit int, stdout, stderr string) {
		events := event.Events()
		ev := events[int(n)%len(events)]
		h := &settings.Hook{Event: ev, Command: "fuzz-hook", Timeout: time.Second, Type: "command"}
		x := proc.Exec{ExitCode: exit, Stdout: stdout, Stderr: stderr}

		v := interpret(ev, h, x)
		if again := interpret(ev, h, x); !reflect.DeepEqual(v, again) {
			t.Fatalf("two readings of one output differ:\n%+v\n%+v", v, again)
		}
		trimmed := strings.TrimSpace(stdout)
		if v.json {
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(trimmed), &obj) != nil {
				t.Fatalf("a verdict was read from stdout that is not one JSON object: %q", trimmed)
			}
			if len(v.problems) != 0 {
				t.Fatalf("JSON decided but has problems: %v", v.problems)
			}
		}
		if strings.HasPrefix(trimmed, "{") && !v.json && len(v.problems)+len(v.notes) == 0 && !v.cut {
			t.Fatalf("stdout starting with '{' neither decided nor said why not: %q", trimmed)
		}
		if exit == 2 && v.json {
			t.Fatalf("the stdout of a hook that exited 2 was read: %q", trimmed)
		}
		if exit == 2 && ev.DecidesPermission() && v.permission != PermissionDeny {
			t.Fatalf("exit 2 did not deny: %+v", v)
		}
		if v.json {
			// Keys match exactly: the same answer with its keys upper-cased decides nothing.
			upper := interpret(ev, h, proc.Exec{ExitCode: 0, Stdout: strings.ToUpper(trimmed)})
			if upper.permission != PermissionNone || upper.block || upper.stop {
				t.Fatalf("an answer with upper-cased keys decided: %q -> %+v", strings.ToUpper(trimmed), upper)
			}
		}
		switch v.permission {
		case PermissionNone, PermissionAllow, PermissionAsk, PermissionDeny:
		default:
			t.Fatalf("unknown permission %q", v.permission)
		}
		if v.permission == PermissionDeny && v.reason == "" {
			t.Fatalf("a deny without a reason: %+v", v)
		}
		if v.block && v.reason == "" {
			t.Fatalf("a block without a reason: %+v", v)
		}
		if v.updatedInput != nil {
			var obj map[string]json.RawMessage
			if json.Unmarshal(v.updatedInput, &obj) != nil {
				t.Fatalf("updatedInput is not a JSON object: %q", v.updatedInput)
			}
		}
		if v.summary == "" {
			t.Fatalf("no summary for the run history: %+v", v)
		}

		// Two hooks that said the same, combined.
		res := Result{Event: ev, Continue: true}
		combine(&res, []verdict{v, v})
		if v.stop && res.Continue || !v.stop && !res.Continue {
			t.Fatalf("continue:false was lost or invented: verdict %+v, result %+v", v, res)
		}
		if res.Blocked != v.block {
			t.Fatalf("block was lost or invented: verdict %+v, result %+v", v, res)
		}
		if res.Blocked && ev == event.UserPromptSubmit && len(res.Context)+len(res.AdditionalContext) != 0 {
			t.Fatalf("a blocked prompt injects context: %+v", res)
		}
		for _, c := range append(append([]string(nil), res.Context...), res.AdditionalContext...) {
			if utf8.RuneCountInString(c) > MaxInjectedText+100 {
				t.Fatalf("injected text of %d characters is not capped", utf8.RuneCountInString(c))
			}
		}
		if res.UpdatedInput != nil && res.Permission == PermissionDeny {
			t.Fatalf("a denied tool call has an updated input")
		}
	})
}
