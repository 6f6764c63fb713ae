package hooktest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// Recorded is a case made from a run of the run history, ready to write.
type Recorded struct {
	// FileName is a name for its case file (ending in .test.json).
	FileName string
	// Case is the case file's text.
	Text []byte
	// Summary says in a line what was recorded.
	Summary string
}

// Skipped is a run of the history that could not become a case, and why.
type Skipped struct {
	Run hooks.RunRecord
	Why string
}

// recordedCase is a case as --record writes it: only what it checks.
type recordedCase struct {
	Name   string          `json:"name"`
	Event  string          `json:"event"`
	Input  json.RawMessage `json:"input"`
	Expect recordedExpect  `json:"expect"`
}

type recordedExpect struct {
	Permission   string          `json:"permission,omitempty"`
	Blocked      bool            `json:"blocked"`
	Reason       string          `json:"reason,omitempty"`
	Context      []string        `json:"context,omitempty"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	// UpdatedPrompt is a JSON string, or null: a recorded UserPromptSubmit
	// run expects its rewrite, or none.
	UpdatedPrompt json.RawMessage `json:"updatedPrompt,omitempty"`
	Ran           []string        `json:"ran,omitempty"`
}

// Record turns runs of the run history (oldest first, as hooks.ReadRunLog
// gives them) into cases that expect what the hooks decided then: the
// newest limit runs (all when limit <= 0) of sessionID (any when ""). The
// input leaves out what belongs to the recorded session (session_id,
// transcript_path, cwd, hook_event_name), which `wavehooks test` fills in as
// `wavehooks run` does; the case names no project: run it from the project
// the run came from. A run whose stdin was cut for the history, or that
// holds no decision, is skipped with the reason.
func Record(runs []hooks.RunRecord, sessionID string, limit int) ([]Recorded, []Skipped) {
	var out []Recorded
	var skipped []Skipped
	for i := len(runs) - 1; i >= 0 && (limit <= 0 || len(out) < limit); i-- {
		r := runs[i]
		if sessionID != "" && r.SessionID != sessionID {
			continue
		}
		rec, why := record(r)
		if why != "" {
			skipped = append(skipped, Skipped{Run: r, Why: why})
			continue
		}
		out = append(out, rec)
	}
	return out, skipped
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

func record(r hooks.RunRecord) (Recorded, string) {
	d := r.Decision
	if d == nil {
		return Recorded{}, "the run holds no decision (it was not made by hooks)"
	}
	var input map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.Stdin), &input); err != nil {
		return Recorded{}, "its stdin was cut for the history (too large) or is not a JSON object"
	}
	if d.UpdatedInputClipped {
		return Recorded{}, "its updatedInput was too large for the history"
	}
	if d.UpdatedPromptClipped {
		return Recorded{}, "its updatedPrompt was too large for the history"
	}
	for _, k := range []string{"session_id", "transcript_path", "cwd", "hook_event_name"} {
		delete(input, k)
	}
	in, err := json.Marshal(input)
	if err != nil {
		return Recorded{}, err.Error()
	}
	c := recordedCase{Event: string(r.Event), Input: in,
		Expect: recordedExpect{Blocked: d.Blocked, Reason: d.Reason, Context: d.Context, UpdatedInput: d.UpdatedInput}}
	if r.Event == event.UserPromptSubmit && !d.Blocked {
		c.Expect.UpdatedPrompt = json.RawMessage("null")
		if d.UpdatedPrompt != "" {
			c.Expect.UpdatedPrompt, _ = json.Marshal(d.UpdatedPrompt)
		}
	}
	if r.Event == event.PreToolUse {
		c.Expect.Permission = string(d.Permission)
		if c.Expect.Permission == "" {
			c.Expect.Permission = "none"
		}
	}
	for _, h := range r.Hooks {
		if h.Ran {
			c.Expect.Ran = append(c.Expect.Ran, h.Command)
		}
	}
	what := strings.TrimSpace(string(r.Event) + " " + r.MatchValue)
	c.Name = fmt.Sprintf("%s (recorded %s, session %s)", what, r.Time.UTC().Format(time.RFC3339), r.SessionID)
	text, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return Recorded{}, err.Error()
	}
	name := fmt.Sprintf("%s-%s-%d", unsafeName.ReplaceAllString(what, "_"), r.Time.UTC().Format("20060102T150405.000000000"), r.ID)
	return Recorded{FileName: strings.ReplaceAll(name, ".", "") + ".test.json", Text: append(text, '\n'),
		Summary: what + ": " + r.Outcome}, ""
}
