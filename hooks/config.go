package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// Source says which settings file a hook came from. Sources are merged in
// the order listed: hooks from every source run; none overrides another.
type Source int

// The settings sources, in merge order.
const (
	SourceUser Source = iota
	SourceProject
	SourceLocal
	SourceClaudeUser
	SourceClaudeProject
	SourceClaudeLocal
)

var sourceNames = [...]string{"user", "project", "local", "claude-user", "claude-project", "claude-local"}

func (s Source) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "source(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the source as its name.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// FromWorkspace reports whether the source comes with the repository: such
// hooks are someone else's code and only run once the user trusts them.
func (s Source) FromWorkspace() bool {
	return s == SourceProject || s == SourceLocal || s == SourceClaudeProject || s == SourceClaudeLocal
}

// DefaultTimeout is how long a hook may run when its configuration sets no timeout.
const DefaultTimeout = 60 * time.Second

// Hook is one configured command, with where it was written.
type Hook struct {
	Event   Event
	Matcher *Matcher
	Type    string
	Command string
	Timeout time.Duration
	Source  Source
	File    string
	// CommandRange is where the command string is in File, for code lenses and diagnostics.
	CommandRange Range
}

// Settings are the non-hook keys of one settings file that change how hooks run.
type Settings struct {
	DisableAllHooks   *bool
	TranscriptFormat  string
	ImportClaudeHooks *bool
}

// File is one parsed settings file: its hooks, settings and problems.
type File struct {
	Path        string
	Source      Source
	Exists      bool
	Hooks       []Hook
	Settings    Settings
	Diagnostics []Diagnostic
}

// Paths says where the settings files are.
type Paths struct {
	// WaveHome holds the user's settings.json, the sessions and the trust store.
	WaveHome string
	// ProjectRoot is the workspace; hooks run with it as their working directory.
	ProjectRoot string
	// ClaudeHome is ~/.claude, read only when importClaudeHooks is set.
	ClaudeHome string
}

// DefaultWaveHome is $WAVE_HOME, or ~/.wave.
func DefaultWaveHome() string {
	if h := os.Getenv("WAVE_HOME"); h != "" {
		return h
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".wave")
}

// DefaultClaudeHome is ~/.claude.
func DefaultClaudeHome() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".claude")
}

// SettingsFiles lists every settings file the paths name, in merge order,
// whether or not it exists.
func (p Paths) SettingsFiles() []SourceFile {
	files := []SourceFile{{SourceUser, filepath.Join(p.WaveHome, "settings.json")}}
	if p.ProjectRoot != "" {
		files = append(files,
			SourceFile{SourceProject, filepath.Join(p.ProjectRoot, ".wave", "settings.json")},
			SourceFile{SourceLocal, filepath.Join(p.ProjectRoot, ".wave", "settings.local.json")})
	}
	if p.ClaudeHome != "" {
		files = append(files, SourceFile{SourceClaudeUser, filepath.Join(p.ClaudeHome, "settings.json")})
	}
	if p.ProjectRoot != "" {
		files = append(files,
			SourceFile{SourceClaudeProject, filepath.Join(p.ProjectRoot, ".claude", "settings.json")},
			SourceFile{SourceClaudeLocal, filepath.Join(p.ProjectRoot, ".claude", "settings.local.json")})
	}
	return files
}

// SourceFile pairs a settings path with its source.
type SourceFile struct {
	Source Source
	Path   string
}

// Config is the merged hook configuration of all sources.
type Config struct {
	Paths Paths
	Files []File
	// Hooks holds every hook of every file in merge order, including hooks of
	// Claude Code files when importing them is off (Imported tells them apart).
	Hooks           []Hook
	DisableAllHooks bool
	// TranscriptFormat is "json" or "jsonl".
	TranscriptFormat  string
	ImportClaudeHooks bool
}

// Diagnostics returns the problems of every file, in merge order.
func (c *Config) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, f := range c.Files {
		out = append(out, f.Diagnostics...)
	}
	return out
}

// Active reports whether a hook takes part in events at all: Claude Code
// files only count when importing them is on, and nothing runs when hooks are
// disabled.
func (c *Config) Active(h *Hook) (bool, string) {
	if c.DisableAllHooks {
		return false, "disableAllHooks is set"
	}
	if h.Source >= SourceClaudeUser && !c.ImportClaudeHooks {
		return false, "Claude Code settings are only read when importClaudeHooks is true"
	}
	return true, ""
}

// Load reads every settings file of the paths. Texts overrides what is on
// disk for the files it names (the editor's unsaved buffers). A missing file
// is no problem; a broken one keeps its problems as diagnostics and never
// stops the other files' hooks from loading.
func Load(p Paths, texts map[string][]byte) *Config {
	cfg := &Config{Paths: p, TranscriptFormat: "json"}
	for _, sf := range p.SettingsFiles() {
		text, ok := texts[sf.Path]
		var f File
		if ok {
			f = ParseFile(sf.Path, sf.Source, text, p.ProjectRoot)
		} else {
			f = ReadFile(sf.Path, sf.Source, p.ProjectRoot)
		}
		cfg.Files = append(cfg.Files, f)
	}
	for _, f := range cfg.Files {
		s := f.Settings
		if s.ImportClaudeHooks != nil && *s.ImportClaudeHooks && f.Source < SourceClaudeUser {
			cfg.ImportClaudeHooks = true
		}
	}
	for _, f := range cfg.Files {
		if f.Source >= SourceClaudeUser && !cfg.ImportClaudeHooks {
			continue
		}
		if f.Settings.DisableAllHooks != nil && *f.Settings.DisableAllHooks {
			cfg.DisableAllHooks = true
		}
		if f.Settings.TranscriptFormat != "" && f.Source < SourceClaudeUser {
			cfg.TranscriptFormat = f.Settings.TranscriptFormat
		}
		cfg.Hooks = append(cfg.Hooks, f.Hooks...)
	}
	return cfg
}

// ReadFile reads and parses one settings file from disk.
func ReadFile(path string, src Source, projectRoot string) File {
	text, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{Path: path, Source: src}
	case err != nil:
		return File{Path: path, Source: src, Exists: true, Diagnostics: []Diagnostic{{
			File: path, Severity: SeverityError, Code: CodeUnreadable, Message: "cannot read settings file: " + err.Error()}}}
	}
	return ParseFile(path, src, text, projectRoot)
}

var hujsonPosRE = regexp.MustCompile(`line (\d+), column (\d+): (.*)$`)

// ParseFile parses the text of one settings file. Comments and trailing
// commas are allowed. Every problem becomes a positioned Diagnostic; hooks
// that are still usable are kept.
func ParseFile(path string, src Source, text []byte, projectRoot string) File {
	f := File{Path: path, Source: src, Exists: true}
	idx := newLineIndex(text)
	p := &fileParser{file: &f, idx: idx, root: projectRoot}
	if len(strings.TrimSpace(string(text))) == 0 {
		return f // an empty file is an empty configuration
	}
	v, err := hujson.Parse(text)
	if err != nil {
		d := Diagnostic{File: path, Severity: SeverityError, Code: CodeSyntax, Message: "invalid JSON: " + err.Error()}
		if m := hujsonPosRE.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			off := idx.starts[min(line-1, len(idx.starts)-1)] + col - 1
			d.Range = idx.span(off, min(off+1, len(text)))
			d.Message = "invalid JSON: " + m[3]
		}
		f.Diagnostics = append(f.Diagnostics, d)
		return f
	}
	p.parseRoot(&v)
	return f
}

type fileParser struct {
	file *File
	idx  *lineIndex
	root string
}

func (p *fileParser) report(v *hujson.Value, sev Severity, code, msg, data string) {
	p.file.Diagnostics = append(p.file.Diagnostics, Diagnostic{
		File: p.file.Path, Range: p.idx.span(v.StartOffset, v.EndOffset), Severity: sev, Code: code, Message: msg, Data: data})
}

func (p *fileParser) parseRoot(v *hujson.Value) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeNotObject, "a settings file must be a JSON object", "")
		return
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		switch name := memberName(m); name {
		case "hooks":
			p.parseHooks(&m.Value)
		case "disableAllHooks":
			p.file.Settings.DisableAllHooks = p.boolValue(&m.Value, name)
		case "importClaudeHooks":
			p.file.Settings.ImportClaudeHooks = p.boolValue(&m.Value, name)
		case "transcriptFormat":
			if s, ok := p.stringValue(&m.Value, name); ok {
				if s != "json" && s != "jsonl" {
					p.report(&m.Value, SeverityError, CodeWrongType, `transcriptFormat must be "json" or "jsonl"`, "")
				} else {
					p.file.Settings.TranscriptFormat = s
				}
			}
		}
	}
}

func memberName(m *hujson.ObjectMember) string {
	lit, _ := m.Name.Value.(hujson.Literal)
	return lit.String()
}

func (p *fileParser) boolValue(v *hujson.Value, key string) *bool {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != 't' && lit.Kind() != 'f' {
		p.report(v, SeverityError, CodeWrongType, key+" must be true or false", "")
		return nil
	}
	b := lit.Bool()
	return &b
}

func (p *fileParser) stringValue(v *hujson.Value, key string) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		p.report(v, SeverityError, CodeWrongType, key+" must be a string", "")
		return "", false
	}
	return lit.String(), true
}

func (p *fileParser) parseHooks(v *hujson.Value) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeWrongType, `"hooks" must be an object of event names`, "")
		return
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		ev := Event(memberName(m))
		if _, known := Spec(ev); !known {
			sugg := closestEvent(string(ev))
			msg := fmt.Sprintf("unknown hook event %q", ev)
			if sugg != "" {
				msg += fmt.Sprintf("; did you mean %q?", sugg)
			}
			p.report(&m.Name, SeverityError, CodeUnknownEvent, msg, string(sugg))
			continue
		}
		groups, ok := m.Value.Value.(*hujson.Array)
		if !ok {
			p.report(&m.Value, SeverityError, CodeWrongType, fmt.Sprintf("%s must be an array of matcher groups", ev), "")
			continue
		}
		for j := range groups.Elements {
			p.parseGroup(ev, &groups.Elements[j])
		}
	}
}

func (p *fileParser) parseGroup(ev Event, v *hujson.Value) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeWrongType, `a matcher group must be an object with "matcher" and "hooks"`, "")
		return
	}
	matcher, _ := CompileMatcher("")
	var hooksVal *hujson.Value
	for i := range obj.Members {
		m := &obj.Members[i]
		switch memberName(m) {
		case "matcher":
			s, ok := p.stringValue(&m.Value, "matcher")
			if !ok {
				return
			}
			compiled, err := CompileMatcher(s)
			if err != nil {
				p.report(&m.Value, SeverityError, CodeBadMatcher, err.Error()+"; this group's hooks will not run", "")
				return
			}
			matcher = compiled
			if !ev.UsesMatcher() && strings.TrimSpace(s) != "" && strings.TrimSpace(s) != "*" {
				p.report(&m.Value, SeverityWarning, CodeMatcherIgnored,
					fmt.Sprintf("%s ignores matchers: these hooks run on every %s", ev, ev), "")
			}
		case "hooks":
			hooksVal = &m.Value
		}
	}
	if hooksVal == nil {
		p.report(v, SeverityError, CodeWrongType, `a matcher group needs a "hooks" array`, "")
		return
	}
	arr, ok := hooksVal.Value.(*hujson.Array)
	if !ok {
		p.report(hooksVal, SeverityError, CodeWrongType, `"hooks" must be an array of hook objects`, "")
		return
	}
	for i := range arr.Elements {
		if h, ok := p.parseHook(ev, matcher, &arr.Elements[i]); ok {
			p.file.Hooks = append(p.file.Hooks, h)
		}
	}
}

func (p *fileParser) parseHook(ev Event, matcher *Matcher, v *hujson.Value) (Hook, bool) {
	h := Hook{Event: ev, Matcher: matcher, Timeout: DefaultTimeout, Source: p.file.Source, File: p.file.Path}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeWrongType, `a hook must be an object like {"type": "command", "command": "..."}`, "")
		return h, false
	}
	var cmdVal *hujson.Value
	valid := true
	for i := range obj.Members {
		m := &obj.Members[i]
		switch memberName(m) {
		case "type":
			s, ok := p.stringValue(&m.Value, "type")
			if !ok {
				return h, false
			}
			h.Type = s
			if s != "command" {
				p.report(&m.Value, SeverityError, CodeUnknownHookType,
					fmt.Sprintf("unknown hook type %q: wavehooks runs \"command\" hooks; this hook will not run", s), "command")
				valid = false
			}
		case "command":
			s, ok := p.stringValue(&m.Value, "command")
			if !ok {
				return h, false
			}
			h.Command, cmdVal = s, &m.Value
			h.CommandRange = p.idx.span(m.Value.StartOffset, m.Value.EndOffset)
		case "timeout":
			lit, ok := m.Value.Value.(hujson.Literal)
			secs := 0.0
			if ok && lit.Kind() == '0' {
				secs = lit.Float()
			}
			if !ok || lit.Kind() != '0' || secs <= 0 {
				p.report(&m.Value, SeverityError, CodeBadTimeout,
					fmt.Sprintf("timeout must be a positive number of seconds; the default %ds applies", int(DefaultTimeout.Seconds())), "")
				continue
			}
			h.Timeout = secondsToDuration(secs)
		}
	}
	if h.Type == "" {
		p.report(v, SeverityWarning, CodeMissingType, `hook has no "type"; it runs as a "command" hook`, "command")
		h.Type = "command"
	}
	if !valid {
		return h, false
	}
	if strings.TrimSpace(h.Command) == "" {
		target := v
		if cmdVal != nil {
			target = cmdVal
		}
		p.report(target, SeverityError, CodeEmptyCommand, "hook command is empty; this hook will not run", "")
		return h, false
	}
	p.checkScript(cmdVal, h.Command)
	return h, true
}

// secondsToDuration converts a configured timeout and keeps it positive:
// seconds beyond what a Duration holds (about 292 years) would overflow to a
// negative Duration, and a fraction of a nanosecond would round to zero;
// either would time the hook out before it started.
func secondsToDuration(secs float64) time.Duration {
	ns := secs * float64(time.Second)
	if ns >= float64(math.MaxInt64) {
		return math.MaxInt64
	}
	return max(time.Duration(ns), 1)
}

// checkScript flags a command whose first word is a script path that does not
// exist or is not executable: the hook would fail with exit 127 or 126.
func (p *fileParser) checkScript(v *hujson.Value, command string) {
	script := ScriptPath(command, p.root)
	if script == "" {
		return
	}
	st, err := os.Stat(script)
	switch {
	case err != nil:
		p.report(v, SeverityError, CodeScriptMissing, fmt.Sprintf("script %s does not exist; the hook will fail with exit 127", script), script)
	case st.IsDir():
		p.report(v, SeverityError, CodeScriptMissing, fmt.Sprintf("%s is a directory, not a script", script), "")
	case st.Mode().Perm()&0o111 == 0:
		p.report(v, SeverityError, CodeNotExecutable, fmt.Sprintf("script %s is not executable; the hook will fail with exit 126", script), script)
	}
}

// ScriptPath returns the file a command runs directly when its first word is
// a path (./x.sh, /abs/x, $CLAUDE_PROJECT_DIR/x, ~/x), resolved against the
// project root; "" when the command starts with a program name to look up
// in PATH, where a missing file is not something the settings can know.
func ScriptPath(command, projectRoot string) string {
	first := firstWord(command)
	if first == "" || !strings.ContainsRune(first, '/') {
		return ""
	}
	for _, v := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$WAVE_PROJECT_DIR", "${WAVE_PROJECT_DIR}"} {
		if strings.HasPrefix(first, v) {
			first = projectRoot + first[len(v):]
		}
	}
	if strings.HasPrefix(first, "~/") {
		home, _ := os.UserHomeDir()
		first = filepath.Join(home, first[2:])
	}
	if strings.ContainsAny(first, "$`*?[") {
		return "" // needs the shell to expand: nothing to check here
	}
	if !filepath.IsAbs(first) {
		first = filepath.Join(projectRoot, first)
	}
	return first
}

// firstWord returns the first shell word of a command, with simple quoting removed.
func firstWord(command string) string {
	s := strings.TrimSpace(command)
	if s == "" {
		return ""
	}
	if q := s[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(s[1:], q); end >= 0 {
			return s[1 : end+1]
		}
		return ""
	}
	if i := strings.IndexAny(s, " \t;|&<>()"); i >= 0 {
		return s[:i]
	}
	return s
}

// closestEvent suggests the known event nearest to a misspelt name, or "".
func closestEvent(name string) Event {
	best, bestDist := Event(""), 1<<30
	for _, e := range Events() {
		d := editDistance(strings.ToLower(name), strings.ToLower(string(e)))
		if d < bestDist {
			best, bestDist = e, d
		}
	}
	if bestDist > max(3, len(name)/2) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
