//go:build linux

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Row is one line of the results table: one aspect of one scenario, the
// same on both sides or not.
type Row struct {
	Scenario string
	Aspect   string
	Same     bool
	// Detail says how it is the same (when that is worth saying) or what differs.
	Detail string
	// Items are the single differences of a stdin, environment or replay
	// row; each is allowed (or not) on its own by knownItems.
	Items []Item
}

// ID names the row in knownRows.
func (r Row) ID() string { return r.Scenario + " / " + r.Aspect }

// Item is one difference inside a row: a key of a hook's stdin, a variable
// of its environment.
type Item struct {
	Key  string // the allow-list key: "PreToolUse.permission_mode", "env CLAUDE_PID", "replay order"
	Text string // what differs, for the table
}

// Compare lists the rows of one scenario.
func Compare(s *Scenario, claude, wave *Observation) []Row {
	var rows []Row
	add := func(aspect string, same bool, detail string) {
		rows = append(rows, Row{Scenario: s.Name, Aspect: aspect, Same: same, Detail: detail})
	}

	// Which hooks ran, how often.
	var fired, diff []string
	for _, h := range s.Hooks {
		c, w := len(claude.Calls[h.Name]), len(wave.Calls[h.Name])
		if c != w {
			diff = append(diff, fmt.Sprintf("%s (%s): Claude Code %d×, wavehooks %d×", h.Name, h.Event, c, w))
		} else if c > 0 {
			fired = append(fired, fmt.Sprintf("%s %d×", h.Name, c))
		}
	}
	if len(diff) > 0 {
		add("hooks that ran", false, strings.Join(diff, "; "))
	} else {
		add("hooks that ran", true, orNone(strings.Join(fired, ", ")))
	}

	// Which tools ran, with which input (the marker files they made).
	if slices.Equal(claude.Markers, wave.Markers) {
		add("tools that ran", true, orNone(strings.Join(claude.Markers, ", ")))
	} else {
		add("tools that ran", false, fmt.Sprintf("Claude Code made %s, wavehooks %s",
			orNone(strings.Join(claude.Markers, ", ")), orNone(strings.Join(wave.Markers, ", "))))
	}

	// Whether the agent went on: how many times it called the model.
	if claude.ModelCalls == wave.ModelCalls {
		add("model calls", true, fmt.Sprint(claude.ModelCalls))
	} else {
		add("model calls", false, fmt.Sprintf("Claude Code %d, wavehooks %d", claude.ModelCalls, wave.ModelCalls))
	}

	// What reached the model, and as what.
	for _, tok := range s.Tokens() {
		c, w := claude.ChannelOf(tok), wave.ChannelOf(tok)
		aspect := modelAspect(tok)
		if c == w {
			add(aspect, true, c)
		} else {
			add(aspect, false, fmt.Sprintf("Claude Code: %s, wavehooks: %s", c, w))
		}
	}

	for _, name := range s.Stdin {
		h, _ := s.hookByName(name)
		rows = append(rows, itemRow(s.Name, "stdin of "+h.Event+" ("+name+")",
			compareStdin(h.Event, claude.Calls[name], wave.Calls[name], dirReplacer(claude, wave))))
	}
	for _, name := range s.Env {
		h, _ := s.hookByName(name)
		rows = append(rows, itemRow(s.Name, "environment of "+h.Event+" ("+name+")",
			compareEnv(claude.Calls[name], wave.Calls[name])))
	}
	return rows
}

// itemRow is a row made of single differences.
func itemRow(scenario, aspect string, items []Item) Row {
	r := Row{Scenario: scenario, Aspect: aspect, Same: len(items) == 0, Items: items}
	var texts []string
	for _, it := range items {
		texts = append(texts, it.Text)
	}
	r.Detail = strings.Join(texts, "; ")
	return r
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// dirReplacer puts placeholders for both sides' own directories, so that
// paths compare by meaning.
func dirReplacer(sides ...*Observation) *strings.Replacer {
	var pairs []string
	for _, o := range sides {
		for dir, name := range o.Dirs {
			pairs = append(pairs, dir, name)
		}
	}
	return strings.NewReplacer(pairs...)
}

// valueless are stdin keys whose values are the agent's own (ids, paths of
// its transcripts, timings): only that they are there is compared.
var valueless = map[string]bool{"session_id": true, "transcript_path": true, "prompt_id": true, "duration_ms": true,
	"turn_id": true, "message_id": true}

// compareStdin lists the differences of each pair of runs of one hook.
func compareStdin(event string, claude, wave []HookCall, paths *strings.Replacer) []Item {
	var items []Item
	if (len(claude) == 0) != (len(wave) == 0) {
		// Nothing to compare key by key: the row must not read "same".
		items = append(items, Item{event + ".runs", fmt.Sprintf("no stdin to compare: the hook ran %d× in Claude Code, %d× in wavehooks", len(claude), len(wave))})
	}
	seen := map[string]bool{}
	for i := 0; i < len(claude) && i < len(wave); i++ {
		for _, it := range diffObjects(event+".", claude[i].Stdin, wave[i].Stdin, paths, valueless) {
			if !seen[it.Key+it.Text] {
				seen[it.Key+it.Text] = true
				items = append(items, it)
			}
		}
	}
	return items
}

// uuidPattern finds the random ids a run makes (Claude Code's session ids
// inside a skill command's tool_use_id), which stableIDs writes as <uuid>
// so that the table is the same from run to run.
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func stableIDs(s string) string { return uuidPattern.ReplaceAllString(s, "<uuid>") }

// diffObjects compares two JSON objects key by key: keys only one side
// has, values that differ, and the order of the keys both have. Item keys
// are prefix+key ("PreToolUse.effort") and prefix+"order".
func diffObjects(prefix string, claude, wave json.RawMessage, paths *strings.Replacer, presenceOnly map[string]bool) []Item {
	ck, cv, err1 := orderedObject(claude)
	wk, wv, err2 := orderedObject(wave)
	if err1 != nil || err2 != nil {
		return []Item{{Key: prefix + "json", Text: fmt.Sprintf("unreadable stdin: %v %v", err1, err2)}}
	}
	var items []Item
	for _, k := range ck {
		w, ok := wv[k]
		switch {
		case !ok && presenceOnly[k]:
			items = append(items, Item{prefix + k, "no `" + k + "`"})
		case !ok:
			items = append(items, Item{prefix + k, "no `" + k + "` (Claude Code: " + short(paths.Replace(string(cv[k]))) + ")"})
		case presenceOnly[k]:
		case isObjectList(cv[k], w):
			// Lists of objects (PostToolBatch's tool_calls) are compared
			// entry by entry, key by key: "PostToolBatch.tool_calls[].tool_response".
			var cl, wl []json.RawMessage
			_ = json.Unmarshal(cv[k], &cl)
			_ = json.Unmarshal(w, &wl)
			for i := range cl {
				items = append(items, diffObjects(prefix+k+"[].", cl[i], wl[i], paths, presenceOnly)...)
			}
		case !jsonEqual(json.RawMessage(paths.Replace(string(cv[k]))), json.RawMessage(paths.Replace(string(w)))):
			items = append(items, Item{prefix + k, fmt.Sprintf("`%s`: Claude Code %s, wavehooks %s", k,
				short(stableIDs(paths.Replace(string(cv[k])))), short(stableIDs(paths.Replace(string(w)))))})
		}
	}
	for _, k := range wk {
		if _, ok := cv[k]; !ok {
			items = append(items, Item{prefix + k, "also `" + k + "`"})
		}
	}
	var co, wo []string
	for _, k := range ck {
		if _, ok := wv[k]; ok {
			co = append(co, k)
		}
	}
	for _, k := range wk {
		if _, ok := cv[k]; ok {
			wo = append(wo, k)
		}
	}
	if !slices.Equal(co, wo) {
		items = append(items, Item{prefix + "order", "key order: Claude Code " + strings.Join(co, ", ") + "; wavehooks " + strings.Join(wo, ", ")})
	}
	return items
}

// isObjectList says whether a and b are lists of objects of the same length.
func isObjectList(a, b json.RawMessage) bool {
	var x, y []map[string]json.RawMessage
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && len(x) == len(y) && len(x) > 0
}

// orderedObject reads a JSON object's keys in order, and its values.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not an object: %.40s", raw)
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals[k] = v
	}
	return keys, vals, nil
}

func short(s string) string {
	const n = 80
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// launchEnv are the variables the suite itself gives the CLI and the
// server; the environment rows compare only what an agent adds for its hooks.
var launchEnv = map[string]bool{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": true, "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS": true,
	"WAVE_MANAGED_SETTINGS": true}

// compareEnv lists the variables one side sets for the hook and the other does not.
func compareEnv(claude, wave []HookCall) []Item {
	var items []Item
	seen := map[string]bool{}
	for i := 0; i < len(claude) && i < len(wave); i++ {
		for _, name := range claude[i].Env {
			if !launchEnv[name] && !slices.Contains(wave[i].Env, name) && !seen["-"+name] {
				seen["-"+name] = true
				items = append(items, Item{"env " + name, "no `" + name + "`"})
			}
		}
		for _, name := range wave[i].Env {
			if !launchEnv[name] && !slices.Contains(claude[i].Env, name) && !seen["+"+name] {
				seen["+"+name] = true
				items = append(items, Item{"env " + name, "also `" + name + "`"})
			}
		}
	}
	return items
}
