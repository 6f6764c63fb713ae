package acp

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// updateScripts rewrites the expected sections of testdata/script/*.txt from
// what the proxy does now: go test ./acp -run TestScript -update.
var updateScripts = flag.Bool("update", false, "rewrite the want and agent.got sections of acp/testdata/script")

// TestScript runs every case under testdata/script (the format is in its
// README.md): an editor's messages in, a scripted agent and real sh + jq
// hooks, and the messages the editor and the agent got, compared line by
// line once paths and the proxy's random ids are replaced by names.
func TestScript(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			runScript(t, file)
		})
	}
}

// scriptFile is a parsed script: its comment and its sections, in order.
type scriptFile struct {
	comment  string
	sections []scriptSection
}

type scriptSection struct {
	name string
	body string
}

// section is the body of the section named name, and whether there is one.
func (s *scriptFile) section(name string) (string, bool) {
	for _, sec := range s.sections {
		if sec.name == name {
			return sec.body, true
		}
	}
	return "", false
}

// set replaces (or adds) a section's body.
func (s *scriptFile) set(name, body string) {
	for i := range s.sections {
		if s.sections[i].name == name {
			s.sections[i].body = body
			return
		}
	}
	s.sections = append(s.sections, scriptSection{name, body})
}

var sectionLine = regexp.MustCompile(`^-- (\S+) --$`)

// parseScript reads the txtar-like format: a comment, then sections each
// opened by a line "-- name --".
func parseScript(data string) *scriptFile {
	s := &scriptFile{}
	var cur *scriptSection
	var b strings.Builder
	end := func() {
		if cur == nil {
			s.comment = b.String()
		} else {
			cur.body = b.String()
			s.sections = append(s.sections, *cur)
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		if m := sectionLine.FindStringSubmatch(strings.TrimRight(line, "\n")); m != nil {
			end()
			cur = &scriptSection{name: m[1]}
			continue
		}
		b.WriteString(line)
	}
	end()
	return s
}

func (s *scriptFile) format() string {
	var b strings.Builder
	b.WriteString(s.comment)
	for _, sec := range s.sections {
		fmt.Fprintf(&b, "-- %s --\n%s", sec.name, sec.body)
		if sec.body != "" && !strings.HasSuffix(sec.body, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// scriptNames are the sections the driver reads itself; any other section
// is a file written into the case's directory ($DIR).
var scriptNames = map[string]bool{"settings.json": true, "agent.json": true, "editor": true, "want": true, "agent.got": true, "check.sh": true}

// ownIDs are the proxy's own request ids, random in each run (randomOwnID).
var ownIDs = regexp.MustCompile(`"` + ownIDPrefix + `([a-z]+)-[A-Za-z0-9]+"`)

func runScript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	s := parseScript(string(data))
	dir, project := t.TempDir(), t.TempDir()
	vars := strings.NewReplacer("$DIR", dir, "$PROJECT", project)
	for _, sec := range s.sections {
		if scriptNames[sec.name] {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(sec.name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(vars.Replace(sec.body)), 0o755))
	}
	settingsJSON, _ := s.section("settings.json")
	agentJSON, _ := s.section("agent.json")
	r := startRig(t, rigOptions{settings: vars.Replace(settingsJSON), script: vars.Replace(agentJSON), project: project})
	names := strings.NewReplacer(dir, "$DIR", project, "$PROJECT", r.home, "$WAVE_HOME")
	normal := func(line string) string {
		return ownIDs.ReplaceAllString(names.Replace(line), `"`+ownIDPrefix+`$1-$$ID"`)
	}

	// The editor's lines, in order: a request waits for its answer (the
	// agent's requests meanwhile answered as rig.defaultAnswer does).
	var got []string
	editor, _ := s.section("editor")
	for _, line := range strings.Split(editor, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = vars.Replace(line)
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &env), "editor line %q", line)
		r.send(line)
		if env.ID == nil || env.Method == "" {
			continue
		}
		for {
			m := r.read()
			require.NotNil(t, m, "the proxy ended before answering %s", line)
			got = append(got, normal(m.Line))
			if m.Method == "" && string(m.ID) == string(env.ID) {
				break
			}
		}
	}
	// What the proxy sends after the last answer, until it ends.
	r.mu.Lock()
	r.answer = nil
	r.mu.Unlock()
	r.closeEditor()
	for m := r.read(); m != nil; m = r.read() {
		got = append(got, normal(m.Line))
	}
	<-r.done
	r.done <- 0

	var agentGot []string
	log, _ := os.ReadFile(r.agentLog)
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if line != "" {
			agentGot = append(agentGot, normal(line))
		}
	}

	if check, ok := s.section("check.sh"); ok {
		cmd := exec.Command("sh", "-c", vars.Replace(check))
		cmd.Env = append(os.Environ(), "DIR="+dir, "PROJECT="+project, "WAVE_HOME="+r.home, "AGENT_LOG="+r.agentLog)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "check.sh failed:\n%s", out)
	}

	wantEditor, _ := s.section("want")
	wantAgent, _ := s.section("agent.got")
	gotEditor, gotAgent := joinLines(got), joinLines(agentGot)
	if *updateScripts {
		s.set("want", gotEditor)
		s.set("agent.got", gotAgent)
		sortSections(s)
		require.NoError(t, os.WriteFile(file, []byte(s.format()), 0o644))
		return
	}
	require.Equal(t, wantEditor, gotEditor, "what the editor got (%s; -update rewrites it)", file)
	require.Equal(t, wantAgent, gotAgent, "what the agent got (%s; -update rewrites it)", file)
}

// sortSections puts want and agent.got last, in that order, keeping the rest.
func sortSections(s *scriptFile) {
	rank := func(name string) int {
		switch name {
		case "want":
			return 1
		case "agent.got":
			return 2
		}
		return 0
	}
	sort.SliceStable(s.sections, func(i, j int) bool { return rank(s.sections[i].name) < rank(s.sections[j].name) })
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
