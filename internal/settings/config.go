package settings

import (
	"fmt"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
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
	// SourceManaged is the managed (policy) settings file: its hooks always
	// run, need no workspace trust, and no other file can turn them off.
	SourceManaged
	// SourceVSCode is one of VS Code's hook files, <root>/.github/hooks/*.json,
	// read when importVSCodeHooks is set.
	SourceVSCode
	// The hook files of other agents (agentfmt.Agents), read for an agent
	// that importAgentHooks names, or that the ACP proxy runs without its
	// own hooks firing (Paths.AgentSession): Gemini CLI's settings.json,
	// Codex's hooks.json and Cursor's hooks.json, the user's and the
	// workspace's of each.
	SourceGeminiUser
	SourceGeminiProject
	SourceCodexUser
	SourceCodexProject
	SourceCursorUser
	SourceCursorProject
)

var sourceNames = [...]string{"user", "project", "local", "claude-user", "claude-project", "claude-local", "managed", "vscode",
	"gemini-user", "gemini-project", "codex-user", "codex-project", "cursor-user", "cursor-project"}

// Agent is the agent whose hook file the source is ("" for wavehooks',
// Claude Code's and VS Code's files): its hooks read that agent's stdin and
// answer in its shape (agentfmt).
func (s Source) Agent() agentfmt.Agent {
	switch s {
	case SourceGeminiUser, SourceGeminiProject:
		return agentfmt.Gemini
	case SourceCodexUser, SourceCodexProject:
		return agentfmt.Codex
	case SourceCursorUser, SourceCursorProject:
		return agentfmt.Cursor
	}
	return ""
}

// String is the source's name as diagnostics and run explanations show it.
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
	return s == SourceProject || s == SourceLocal || s == SourceClaudeProject || s == SourceClaudeLocal || s == SourceVSCode ||
		s == SourceGeminiProject || s == SourceCodexProject || s == SourceCursorProject
}

// IsClaude reports whether the source is one of Claude Code's settings files,
// read only when importClaudeHooks is set.
func (s Source) IsClaude() bool {
	return s == SourceClaudeUser || s == SourceClaudeProject || s == SourceClaudeLocal
}

// IsWave reports whether the source is one of wavehooks' own settings files,
// whose settings (not only hooks) count.
func (s Source) IsWave() bool {
	return s == SourceUser || s == SourceProject || s == SourceLocal || s == SourceManaged
}

// DefaultTimeout is how long a hook may run when its configuration sets no
// timeout: Claude Code's 600 s, so that a hook written for Claude Code gets the
// time it was written for (docs/parity.md, "Claude Code compatibility details").
const DefaultTimeout = 600 * time.Second

// defaultTimeout is the timeout of a hook of event ev from source src that
// sets none: VS Code's 30 s in VS Code's files, Claude Code's defaults
// elsewhere: the event's row's Timeout (UserPromptSubmit's 30 s, shorter
// since the prompt waits for them; MessageDisplay's 10 s, since the
// displayed text does), else DefaultTimeout.
func defaultTimeout(ev event.Event, src Source) time.Duration {
	if src == SourceVSCode {
		return DefaultVSCodeTimeout
	}
	if src.Agent() == agentfmt.Gemini {
		return DefaultGeminiTimeout
	}
	if s, _ := event.Spec(ev); s.Timeout != 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// DefaultVSCodeTimeout is the default timeout of hooks in VS Code's hook
// files, as VS Code documents it.
const DefaultVSCodeTimeout = 30 * time.Second

// DefaultGeminiTimeout is the default timeout of hooks in Gemini CLI's
// settings files, as Gemini CLI documents it (60000 ms).
const DefaultGeminiTimeout = 60 * time.Second

// Hook is one configured command, with where it was written.
type Hook struct {
	Event   event.Event
	Matcher *Matcher
	Type    string
	Command string
	Timeout time.Duration
	Source  Source
	File    string
	// CommandRange is where the command string is in File, for code lenses and diagnostics.
	CommandRange Range

	// Args, when not nil, make the hook run Command directly as a program
	// with these arguments (exec form): no shell interprets anything.
	Args []string
	// Cwd is the directory the hook runs in, relative to the project root
	// and inside it; "" is the project root itself.
	Cwd string
	// Env are extra environment variables, "NAME=value", added to the
	// server's environment (and overriding it).
	Env []string
	// Async hooks run in the background: the event never waits for them, and
	// what they print is only reported in the run history.
	Async bool
	// StatusMessage is shown (as the progress title) while the hook runs.
	StatusMessage string
	// If, when not nil, is a permission rule ("Bash(git *)") the tool call
	// must match for the hook to run.
	If *IfRule
	// HookOptions hold the fields of the other hook types (http, prompt,
	// agent, mcp_tool) and the options once, shell and asyncRewake.
	HookOptions
	// Disabled: the hook or its matcher group says "enabled": false. It
	// never runs (the run history says so), whatever trust says; the trust
	// hash covers it, so that turning a hook back on is a change the user
	// trusts (trust.go: turning one off is not).
	Disabled bool
	// Place is where the hook is written in File: for the editor's and the
	// command line's toggles. It changes nothing the hook does.
	Place HookPlace
	// AgentEvent is the event's name in another agent's hook file
	// (Source.Agent), whose stdin and answer the hook speaks: Cursor's
	// beforeShellExecution and preToolUse are both a PreToolUse, with
	// different stdin.
	AgentEvent string
}

// HookPlace is where a hook is written: its matcher group's index under the
// event, its own index in the group's "hooks" (-1 for a hook of VS Code's
// format listed under the event directly), the hook object's range, and
// whether it is its group that says "enabled": false.
type HookPlace struct {
	Group, Index  int
	Range         Range
	GroupDisabled bool
}

// Settings are the non-hook keys of one settings file that change how hooks run.
type Settings struct {
	DisableAllHooks   *bool
	TranscriptFormat  string
	ImportClaudeHooks *bool
	ImportVSCodeHooks *bool
	// ImportAgentHooks names the agents whose hook files also run
	// ("gemini", "codex", "cursor"); nil: the file does not say.
	ImportAgentHooks []agentfmt.Agent
	// AllowManagedHooksOnly only counts in the managed settings file.
	AllowManagedHooksOnly *bool
	// DriftRequiresApproval makes a drifted hook of the user's own settings
	// wait for approval (drift.go); it counts in the user's and the managed
	// settings files.
	DriftRequiresApproval *bool
	// AllowedHTTPHookURLs and HTTPHookAllowedEnvVars restrict http hooks
	// (nil: the file does not say): see Config.HTTPPolicy.
	AllowedHTTPHookURLs    []string
	HTTPHookAllowedEnvVars []string
}

// File is one parsed settings file: its hooks, settings and problems.
type File struct {
	Path        string
	Source      Source
	Exists      bool
	Hooks       []Hook
	Settings    Settings
	Diagnostics []Diagnostic
	// hooksKey is where the file's "hooks" key is, for diagnostics about
	// the file's hooks as a whole (a policy that ignores them).
	hooksKey *Range
	// disableKey is where its "disableAllHooks" key is.
	disableKey *Range
	// probed are the paths the checks of its hooks looked at (a cwd, a
	// script), whose state its diagnostics say: inputs of the load (Inputs).
	probed []string
}

// Paths says where the settings files are.
type Paths struct {
	// WaveHome holds the user's settings.json, the sessions and the trust store.
	WaveHome string
	// ProjectRoot is the workspace; hooks run with it as their working directory.
	ProjectRoot string
	// ClaudeHome is ~/.claude, read only when importClaudeHooks is set.
	ClaudeHome string
	// ManagedFile is the managed (policy) settings file; "" reads none.
	// DefaultManagedFile is where it normally is.
	ManagedFile string
	// AgentHomes are the user directories of other agents' hook files
	// (~/.gemini, ~/.codex, ~/.cursor: DefaultAgentHomes); an agent without
	// one has only its workspace file read.
	AgentHomes map[agentfmt.Agent]string
	// AgentSession is the agent a host runs whose own hooks do not fire
	// there (Gemini CLI's tool hooks in its ACP mode): its hook files' hooks
	// of those events run as if importAgentHooks named it (AgentRunsOwn).
	AgentSession agentfmt.Agent
	// ClaudeManagedDir is Claude Code's managed settings directory: its
	// managed-settings.json and then managed-settings.d/*.json (name order)
	// are managed files too, so that the policy a team deploys for Claude
	// Code holds in wavehooks as well; "" reads none. DefaultClaudeManagedDir
	// is where it normally is.
	ClaudeManagedDir string
}

// DefaultAgentHomes are where Gemini CLI ($GEMINI_CLI_HOME/.gemini),
// Codex ($CODEX_HOME) and Cursor (~/.cursor) keep the user's hook files.
func DefaultAgentHomes() map[agentfmt.Agent]string {
	home, _ := os.UserHomeDir()
	out := map[agentfmt.Agent]string{agentfmt.Gemini: filepath.Join(home, ".gemini"), agentfmt.Codex: filepath.Join(home, ".codex"),
		agentfmt.Cursor: filepath.Join(home, ".cursor")}
	if g := os.Getenv("GEMINI_CLI_HOME"); g != "" {
		out[agentfmt.Gemini] = filepath.Join(g, ".gemini")
	}
	if c := os.Getenv("CODEX_HOME"); c != "" {
		out[agentfmt.Codex] = c
	}
	return out
}

// ManagedFiles lists the managed settings files the paths name, in the order
// they are read: Claude Code's managed-settings.json, its drop-ins
// (managed-settings.d/*.json that do not start with ".", in name order, as
// Claude Code reads them), and wavehooks' own managed file last.
func (p Paths) ManagedFiles() []string {
	var out []string
	if p.ClaudeManagedDir != "" {
		out = append(out, filepath.Join(p.ClaudeManagedDir, "managed-settings.json"))
		dir := filepath.Join(p.ClaudeManagedDir, "managed-settings.d")
		if ents, err := os.ReadDir(dir); err == nil {
			var names []string
			for _, e := range ents {
				if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") && !e.IsDir() {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			for _, n := range names {
				out = append(out, filepath.Join(dir, n))
			}
		}
	}
	if p.ManagedFile != "" {
		out = append(out, p.ManagedFile)
	}
	return out
}

// AgentFiles lists the hook files of one agent, the user's then the
// workspace's, whether or not they exist.
func (p Paths) AgentFiles(a agentfmt.Agent) []SourceFile {
	name, dir := "hooks.json", "."+string(a)
	user, project := SourceCodexUser, SourceCodexProject
	switch a {
	case agentfmt.Gemini:
		name, user, project = "settings.json", SourceGeminiUser, SourceGeminiProject
	case agentfmt.Cursor:
		user, project = SourceCursorUser, SourceCursorProject
	}
	var out []SourceFile
	if h := p.AgentHomes[a]; h != "" {
		out = append(out, SourceFile{user, filepath.Join(h, name)})
	}
	if p.ProjectRoot != "" {
		out = append(out, SourceFile{project, filepath.Join(p.ProjectRoot, dir, name)})
	}
	return out
}

// IsManagedFile reports whether path is one of the managed settings files
// of the paths: a file wavehooks' own tools never write (the toggles, the
// quick fixes, `wavehooks hooks disable`).
func (p Paths) IsManagedFile(path string) bool {
	path = filepath.Clean(path)
	for _, f := range p.ManagedFiles() {
		if filepath.Clean(f) == path {
			return true
		}
	}
	if p.ClaudeManagedDir != "" && filepath.Dir(path) == filepath.Join(filepath.Clean(p.ClaudeManagedDir), "managed-settings.d") {
		return true
	}
	return false
}

// DefaultClaudeManagedDir is Claude Code's managed settings directory, where
// Claude Code 2.1.332 reads it: /etc/claude-code on Linux, /Library/Application
// Support/ClaudeCode on macOS, C:\Program Files\ClaudeCode on Windows.
// $WAVE_CLAUDE_MANAGED_DIR moves it (tests); when only $WAVE_MANAGED_SETTINGS
// is set, it is "", so that an override of the policy location replaces both.
func DefaultClaudeManagedDir() string {
	if d, ok := os.LookupEnv("WAVE_CLAUDE_MANAGED_DIR"); ok {
		return d
	}
	if os.Getenv("WAVE_MANAGED_SETTINGS") != "" {
		return ""
	}
	return claudeManagedDirFor(runtime.GOOS)
}

// claudeManagedDirFor is Claude Code's managed settings directory on goos.
func claudeManagedDirFor(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// DefaultManagedFile is $WAVE_MANAGED_SETTINGS, or /etc/wave/managed-settings.json
// (on Windows %ProgramData%\wave\managed-settings.json).
func DefaultManagedFile() string {
	if f := os.Getenv("WAVE_MANAGED_SETTINGS"); f != "" {
		return f
	}
	return managedFileFor(runtime.GOOS, os.Getenv("ProgramData"))
}

// managedFileFor is where the managed file is on goos. On Windows it is
// under ProgramData, which only administrators may write, not \etc on the
// current drive, which any user could create.
func managedFileFor(goos, programData string) string {
	if goos != "windows" {
		return "/etc/wave/managed-settings.json"
	}
	if programData == "" {
		programData = `C:\ProgramData`
	}
	return strings.TrimRight(programData, `\`) + `\wave\managed-settings.json`
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

// SettingsFiles lists every settings file the paths name, whether or not it
// exists: user, project, local, Claude Code's three, and the managed file.
// VS Code's hook files are found by listing a directory (VSCodeHookFiles).
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
	for _, m := range p.ManagedFiles() {
		files = append(files, SourceFile{SourceManaged, m})
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
	// Hooks holds the hooks of every file in merge order, those that a
	// policy ignores included (Active tells them apart, and says why), but
	// not those of Claude Code's files when importing them is off.
	Hooks []Hook
	// DisableAllHooks is set when a user, project or local settings file
	// (DisabledBy) sets disableAllHooks: every hook but the managed ones is off.
	DisableAllHooks bool
	DisabledBy      *File
	// ManagedOnly is set when the managed settings file sets
	// allowManagedHooksOnly: the hooks of every other file are ignored.
	ManagedOnly bool
	// ManagedDisabled is set when the managed settings file itself sets
	// disableAllHooks: no hook runs at all.
	ManagedDisabled bool
	// PolicyFile is the managed file that set allowManagedHooksOnly or
	// disableAllHooks, or that cannot be read, which the reasons name.
	PolicyFile string
	// PolicyUnreadable is set when a managed settings file exists but cannot
	// be read or parsed: as in Claude Code (its "policy_unreadable"), no hook
	// runs until it is fixed, since what it allows cannot be known.
	PolicyUnreadable bool
	// Drift lists the hooks of the user's own settings that something other
	// than wavehooks or the user's editor added or changed (drift.go).
	Drift []Drift
	// DriftRequiresApproval: a drifted hook waits for the user's approval.
	DriftRequiresApproval bool
	// driftBaseline: no record exists yet, and the first one adopts the
	// hooks there are; driftErr: the record could not be read.
	driftBaseline bool
	driftErr      error
	// awaiting are the HookIDs of the drifted hooks that wait for the
	// user's approval (driftRequiresApproval).
	awaiting map[string]bool
	// TranscriptFormat is "json" or "jsonl".
	TranscriptFormat  string
	ImportClaudeHooks bool
	ImportVSCodeHooks bool
	// ImportAgentHooks are the agents whose hook files run (importAgentHooks
	// in a settings file that counts).
	ImportAgentHooks []agentfmt.Agent
	// HTTPPolicy restricts where http hooks may post and which environment
	// variables their headers may read.
	HTTPPolicy HTTPPolicy
	// WorkspaceSettings is set when the settings of the workspace's own
	// files were applied (Load), and not when they were left out because
	// the workspace is not trusted (Untrusted).
	WorkspaceSettings bool

	read []File // the files as read, for Untrusted
	// pendingClaude and pendingVSCode are set in an untrusted configuration
	// when only the workspace's settings import Claude Code's or VS Code's
	// files: their hooks are listed, and skipped until the workspace is trusted.
	pendingClaude, pendingVSCode bool
}

// Diagnostics returns the problems of every file, in merge order.
func (c *Config) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, f := range c.Files {
		out = append(out, f.Diagnostics...)
	}
	return out
}

// Active reports whether a hook takes part in events at all, and if not,
// why: the managed settings file's hooks always do (unless that file itself
// disables all hooks); with allowManagedHooksOnly no other file's do;
// disableAllHooks elsewhere turns off all but the managed ones; Claude Code's
// and VS Code's files only count when importing them is on.
func (c *Config) Active(h *Hook) (bool, string) {
	switch {
	case h.Disabled && h.Place.GroupDisabled:
		return false, `disabled: its matcher group says "enabled": false`
	case h.Disabled:
		return false, `disabled: "enabled": false`
	case c.PolicyUnreadable:
		return false, fmt.Sprintf("the managed settings %s cannot be read, so no hook runs until it is fixed (as in Claude Code)", c.PolicyFile)
	case c.ManagedDisabled:
		return false, fmt.Sprintf("disableAllHooks is set in the managed settings %s", c.PolicyFile)
	case h.Source == SourceManaged:
		return true, ""
	case c.awaiting[HookID(h)] && DriftWatched(h.Source):
		return false, fmt.Sprintf("it was added or changed in %s by something other than wavehooks or your editor, and driftRequiresApproval is set: "+
			"it runs once you approve it (`wavehooks hooks approve %s`)", h.File, HookID(h))
	case c.ManagedOnly:
		return false, fmt.Sprintf("allowManagedHooksOnly is set in the managed settings %s: only managed hooks run, %s hooks are ignored",
			c.PolicyFile, h.Source)
	case c.DisableAllHooks:
		why := "disableAllHooks is set"
		if c.DisabledBy != nil {
			why += fmt.Sprintf(" in the %s settings %s", c.DisabledBy.Source, c.DisabledBy.Path)
		}
		return false, why + ": only managed hooks run"
	case h.Source.IsClaude() && !c.ImportClaudeHooks:
		if c.pendingClaude {
			return c.pending(h, "importClaudeHooks")
		}
		return false, "Claude Code settings are only read when importClaudeHooks is true"
	case h.Source == SourceVSCode && !c.ImportVSCodeHooks:
		if c.pendingVSCode {
			return c.pending(h, "importVSCodeHooks")
		}
		return false, "VS Code hook files are only read when importVSCodeHooks is true"
	case h.Source.Agent() != "" && c.Paths.AgentSession == h.Source.Agent() && AgentRunsOwn(h.Source.Agent(), h.Event):
		return false, fmt.Sprintf("%s runs this hook itself in this session; wavehooks does not run it again", h.Source.Agent())
	case h.Source.Agent() != "" && !slices.Contains(c.ImportAgentHooks, h.Source.Agent()) && !c.agentSessionRuns(h):
		return false, fmt.Sprintf("%s's hook files are only read when importAgentHooks names %q", h.Source.Agent(), h.Source.Agent())
	}
	return true, ""
}

// agentSessionRuns reports whether the host runs the agent of h's file
// without that agent running h's event itself.
func (c *Config) agentSessionRuns(h *Hook) bool {
	return c.Paths.AgentSession != "" && c.Paths.AgentSession == h.Source.Agent() && !AgentRunsOwn(h.Source.Agent(), h.Event)
}

// AgentRunsOwn reports whether an agent the ACP proxy runs fires its own
// hooks of ev: Gemini CLI in its ACP mode does not run its tool hooks
// (BeforeTool, AfterTool) and does run the others; Codex (codex-acp) runs
// all of its own. Those wavehooks leaves to the agent, or they would run
// twice for one call.
func AgentRunsOwn(a agentfmt.Agent, ev event.Event) bool {
	if a == agentfmt.Gemini {
		return ev != event.PreToolUse && ev != event.PostToolUse
	}
	return true
}

// pending is Active for a hook that only the untrusted workspace's setting
// imports: the workspace's own hooks take part (and are skipped as
// untrusted, which says why they did not run); the user's do not.
func (c *Config) pending(h *Hook, setting string) (bool, string) {
	if h.Source.FromWorkspace() {
		return true, ""
	}
	return false, setting + " is set only in the workspace's settings, which take effect once the workspace is trusted"
}

// Load reads every settings file of the paths. Texts overrides what is on
// disk for the files it names (the editor's unsaved buffers). A missing file
// is no problem; a broken one keeps its problems as diagnostics and never
// stops the other files' hooks from loading.
//
// The merge order is user, project, local, Claude Code's three files (when
// importClaudeHooks is set), VS Code's hook files (when importVSCodeHooks is
// set), and the managed file last, so that its hooks have the last word
// where the last hook wins (updatedInput).
//
// The configuration Load returns is the workspace's as it would be once
// trusted: the settings of the workspace's files (disableAllHooks, the
// imports, transcriptFormat) are applied. What runs before trust is
// Untrusted's configuration; Resolve picks the one that matches a trust
// decision.
func Load(p Paths, texts map[string][]byte) *Config {
	return assemble(p, readFiles(p, texts), true)
}

// Untrusted is the configuration as it runs while the workspace is not
// trusted: the workspace files' hooks are listed (and skipped as
// untrusted), but none of their settings applies, so an untrusted
// repository cannot turn off the user's own hooks, import Claude Code's or
// VS Code's hook files, or change the transcript format. A configuration
// that is already untrusted is returned as it is.
func (c *Config) Untrusted() *Config {
	if !c.WorkspaceSettings {
		return c
	}
	return assemble(c.Paths, c.read, false)
}

// readFiles reads every settings file the paths name, in merge order.
// Claude Code's files are read only when a wave settings file (a
// workspace's included) sets importClaudeHooks, and VS Code's hook files
// only when one sets importVSCodeHooks: a file whose import is off is never
// opened, so nothing planted there (a FIFO, a file nested too deep) costs
// anything. assemble drops them again from a configuration in which the
// workspace's setting does not count.
func readFiles(p Paths, texts map[string][]byte) []File {
	read := func(path string, src Source) File {
		if text, ok := texts[path]; ok {
			return ParseFile(path, src, text, p.ProjectRoot)
		}
		return ReadFile(path, src, p.ProjectRoot)
	}
	all := p.SettingsFiles()
	got := make([]*File, len(all))
	importClaude, importVSCode := false, false
	for i, sf := range all {
		if sf.Source.IsClaude() {
			continue
		}
		f := read(sf.Path, sf.Source)
		got[i] = &f
		if b := f.Settings.ImportClaudeHooks; b != nil && *b {
			importClaude = true
		}
		if b := f.Settings.ImportVSCodeHooks; b != nil && *b {
			importVSCode = true
		}
	}
	agents := p.agentsToRead(got)
	var files, managed []File
	for i, sf := range all {
		f := got[i]
		if sf.Source.IsClaude() {
			if !importClaude {
				continue
			}
			read := read(sf.Path, sf.Source)
			f = &read
		}
		if sf.Source == SourceManaged {
			managed = append(managed, *f)
			continue
		}
		files = append(files, *f)
	}
	if importVSCode {
		for _, path := range p.VSCodeHookFiles(texts) {
			files = append(files, read(path, SourceVSCode))
		}
	}
	for _, a := range agents {
		for _, sf := range p.AgentFiles(a) {
			files = append(files, read(sf.Path, sf.Source))
		}
	}
	return append(files, managed...)
}

// agentsToRead lists the agents whose hook files are read: those a wave
// settings file read (a workspace's included) names in importAgentHooks,
// and the agent of the session (AgentSession). assemble drops them again
// from a configuration in which the workspace's setting does not count.
func (p Paths) agentsToRead(read []*File) []agentfmt.Agent {
	var out []agentfmt.Agent
	for _, a := range agentfmt.Agents {
		want := a == p.AgentSession
		for _, f := range read {
			if f != nil && f.Source.IsWave() && slices.Contains(f.Settings.ImportAgentHooks, a) {
				want = true
			}
		}
		if want {
			out = append(out, a)
		}
	}
	return out
}

// ReadTexts reads from disk the text of every settings file Load would
// read — the same files, Claude Code's and VS Code's only when a wave
// settings file imports them — through the bounded reader
// (ReadSettingsText). A file that is missing, or cannot be read safely, is
// left out: Load then reads it itself and says why in a diagnostic. The
// server uses it to tell what changed on disk (ConfigChange).
func (p Paths) ReadTexts() map[string][]byte {
	out := map[string][]byte{}
	importClaude, importVSCode := false, false
	var parsed []*File
	for _, sf := range p.SettingsFiles() {
		if sf.Source.IsClaude() {
			continue
		}
		b, err := ReadSettingsText(sf.Path)
		if err != nil {
			continue
		}
		out[sf.Path] = b
		f := ParseFile(sf.Path, sf.Source, b, p.ProjectRoot)
		parsed = append(parsed, &f)
		st := f.Settings
		importClaude = importClaude || (st.ImportClaudeHooks != nil && *st.ImportClaudeHooks)
		importVSCode = importVSCode || (st.ImportVSCodeHooks != nil && *st.ImportVSCodeHooks)
	}
	var more []string
	if importClaude {
		for _, sf := range p.SettingsFiles() {
			if sf.Source.IsClaude() {
				more = append(more, sf.Path)
			}
		}
	}
	if importVSCode {
		more = append(more, p.VSCodeHookFiles(nil)...)
	}
	for _, a := range p.agentsToRead(parsed) {
		for _, sf := range p.AgentFiles(a) {
			more = append(more, sf.Path)
		}
	}
	for _, path := range more {
		if b, err := ReadSettingsText(path); err == nil {
			out[path] = b
		}
	}
	return out
}

// assemble merges the files read into a configuration. With workspace
// false, the settings of the workspace's own files are left out (see
// Untrusted). The files are copied, so that the diagnostics added here stay
// in this configuration.
func assemble(p Paths, read []File, workspace bool) *Config {
	cfg := &Config{Paths: p, TranscriptFormat: "json", WorkspaceSettings: workspace, read: read}
	counts := func(f *File) bool { return workspace || !f.Source.FromWorkspace() }
	for i := range read {
		f := &read[i]
		if !f.Source.IsWave() {
			continue
		}
		if b := f.Settings.ImportClaudeHooks; b != nil && *b {
			cfg.ImportClaudeHooks = cfg.ImportClaudeHooks || counts(f)
			cfg.pendingClaude = !counts(f)
		}
		if b := f.Settings.ImportVSCodeHooks; b != nil && *b {
			cfg.ImportVSCodeHooks = cfg.ImportVSCodeHooks || counts(f)
			cfg.pendingVSCode = !counts(f)
		}
		if counts(f) {
			for _, a := range f.Settings.ImportAgentHooks {
				if !slices.Contains(cfg.ImportAgentHooks, a) {
					cfg.ImportAgentHooks = append(cfg.ImportAgentHooks, a)
				}
			}
		}
	}
	cfg.pendingClaude = cfg.pendingClaude && !cfg.ImportClaudeHooks
	cfg.pendingVSCode = cfg.pendingVSCode && !cfg.ImportVSCodeHooks
	for _, f := range read {
		if f.Source == SourceVSCode && !cfg.ImportVSCodeHooks && !cfg.pendingVSCode {
			continue
		}
		if a := f.Source.Agent(); a != "" && !slices.Contains(cfg.ImportAgentHooks, a) && a != p.AgentSession {
			continue
		}
		f.Diagnostics = f.Diagnostics[:len(f.Diagnostics):len(f.Diagnostics)]
		cfg.Files = append(cfg.Files, f)
	}
	for i := range cfg.Files {
		f := &cfg.Files[i]
		if f.Source.IsClaude() && !cfg.ImportClaudeHooks && !cfg.pendingClaude {
			continue
		}
		if f.Source == SourceManaged && f.unreadable() && !cfg.PolicyUnreadable {
			cfg.PolicyUnreadable, cfg.PolicyFile = true, f.Path
		}
		if counts(f) && (!f.Source.IsClaude() || cfg.ImportClaudeHooks) {
			if b := f.Settings.DisableAllHooks; b != nil && *b && f.Source != SourceVSCode && f.Source.Agent() == "" {
				if f.Source == SourceManaged {
					cfg.ManagedDisabled, cfg.PolicyFile = true, f.Path
				} else if !cfg.DisableAllHooks {
					cfg.DisableAllHooks, cfg.DisabledBy = true, f
				}
			}
			if b := f.Settings.AllowManagedHooksOnly; b != nil && *b && f.Source == SourceManaged {
				if !cfg.ManagedDisabled {
					cfg.PolicyFile = f.Path
				}
				cfg.ManagedOnly = true
			}
			if b := f.Settings.DriftRequiresApproval; b != nil && *b && (f.Source == SourceUser || f.Source == SourceManaged) {
				cfg.DriftRequiresApproval = true
			}
			if f.Settings.TranscriptFormat != "" && f.Source.IsWave() {
				cfg.TranscriptFormat = f.Settings.TranscriptFormat
			}
			cfg.HTTPPolicy.merge(f)
		}
		cfg.Hooks = append(cfg.Hooks, f.Hooks...)
	}
	cfg.checkDrift()
	cfg.explainManagedStillRun()
	cfg.explainIgnoredFiles()
	cfg.explainShadowed()
	cfg.explainDisallowedURLs()
	return cfg
}

// unreadable reports whether the file exists but its settings could not be
// read at all (unreadable, not JSON, not an object).
func (f *File) unreadable() bool {
	for _, d := range f.Diagnostics {
		if d.Code == CodeUnreadable || d.Code == CodeSyntax || d.Code == CodeNotObject {
			return true
		}
	}
	return false
}

// explainManagedStillRun adds to the disableAllHooks key of the user's or
// the project's file that sets it a note that the managed hooks still run,
// naming their files: the setting cannot turn them off.
func (c *Config) explainManagedStillRun() {
	if !c.DisableAllHooks || c.DisabledBy == nil || c.DisabledBy.disableKey == nil || c.ManagedDisabled || c.PolicyUnreadable {
		return
	}
	var files []string
	n := 0
	for i := range c.Hooks {
		if h := &c.Hooks[i]; h.Source == SourceManaged {
			n++
			if !slices.Contains(files, h.File) {
				files = append(files, h.File)
			}
		}
	}
	if n == 0 {
		return
	}
	c.addDiagnostic(Diagnostic{File: c.DisabledBy.Path, Range: *c.DisabledBy.disableKey, Severity: SeverityInfo, Code: CodeManagedHook,
		Message: fmt.Sprintf("disableAllHooks does not turn off the %d managed hook(s) of %s: managed hooks always run", n, strings.Join(files, ", "))})
}

// explainIgnoredFiles adds a diagnostic to every file whose hooks a policy
// ignores, saying which policy and where it is set, so that the file does
// not look as if its hooks ran.
func (c *Config) explainIgnoredFiles() {
	for i := range c.Files {
		f := &c.Files[i]
		if len(f.Hooks) == 0 || f.hooksKey == nil || (f.Source.IsClaude() && !c.ImportClaudeHooks) {
			continue
		}
		first := f.Hooks[0]
		first.Disabled = false // a policy's reason, not one hook's switch
		if ok, why := c.Active(&first); !ok {
			f.Diagnostics = append(f.Diagnostics, Diagnostic{File: f.Path, Range: *f.hooksKey, Severity: SeverityInfo,
				Code: CodeHooksIgnored, Message: fmt.Sprintf("the hooks of this %s settings file do not run: %s", f.Source, why)})
		}
	}
}

// Inputs lists every path the Load that made c depends on, once each, so
// that a caller can tell from their stamps (existence, identity, size,
// times) whether loading again could give anything else (the ACP proxy's
// reload at every prompt, host.Workspace.ReloadIfChanged): every settings
// file the paths name, whether or not it exists and whether or not it was
// read (one appearing counts; Claude Code's are listed even while not
// imported); VS Code's hooks directory and every name in it that matches
// *.json when a wave settings file imports them (a file added there
// changes the directory); and the files the checks of each hook looked at
// (its cwd, its script), which its diagnostics depend on. The texts given
// to Load are no paths: a caller that passes texts must load again.
func (c *Config) Inputs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, sf := range c.Paths.SettingsFiles() {
		add(sf.Path)
	}
	if c.Paths.ClaudeManagedDir != "" {
		add(filepath.Join(c.Paths.ClaudeManagedDir, "managed-settings.d")) // a drop-in added changes the directory
	}
	if c.Paths.WaveHome != "" {
		add(driftRecordPath(c.Paths.WaveHome)) // an approval changes which hooks wait
	}
	listedVSCode := false
	for i := range c.read {
		f := &c.read[i]
		if f.Source.IsWave() && f.Settings.ImportVSCodeHooks != nil && *f.Settings.ImportVSCodeHooks {
			listedVSCode = true // readFiles listed the directory
		}
	}
	if dir := c.Paths.VSCodeHooksDir(); listedVSCode && dir != "" {
		add(dir)
		matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, m := range matches {
			add(m)
		}
	}
	for i := range c.read {
		f := &c.read[i]
		add(f.Path)
		for _, p := range f.probed {
			add(p)
		}
	}
	return out
}

// VSCodeHooksDir is where VS Code keeps a workspace's hook files, "" without a project.
func (p Paths) VSCodeHooksDir() string {
	if p.ProjectRoot == "" {
		return ""
	}
	return filepath.Join(p.ProjectRoot, ".github", "hooks")
}

// VSCodeHookFiles lists VS Code's hook files (<root>/.github/hooks/*.json)
// in name order: those on disk, and those texts has for that directory.
func (p Paths) VSCodeHookFiles(texts map[string][]byte) []string {
	dir := p.VSCodeHooksDir()
	if dir == "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for path := range texts {
		if filepath.Dir(path) == dir && strings.HasSuffix(path, ".json") {
			matches = append(matches, path)
		}
	}
	for _, path := range matches {
		if st, err := os.Stat(path); (err == nil && st.IsDir()) || seen[path] {
			continue
		}
		seen[path] = true
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}

// FileChangedWatchList lists the files that the FileChanged hooks in force
// ask to watch, as Claude Code builds its watch list: each `|`-separated
// name of a FileChanged matcher is a file in the project root. An empty or
// `*` matcher names no file (it matches whatever is watched), and a name
// that would lead outside the root is left out.
func (c *Config) FileChangedWatchList() []string {
	root := c.Paths.ProjectRoot
	var out []string
	if root == "" {
		return out
	}
	for i := range c.Hooks {
		h := &c.Hooks[i]
		if h.Event != event.FileChanged || h.Matcher == nil {
			continue
		}
		if ok, _ := c.Active(h); !ok {
			continue
		}
		for _, name := range strings.Split(h.Matcher.String(), "|") {
			name = strings.TrimSpace(name)
			if name == "" || name == "*" {
				continue
			}
			p := filepath.Join(root, name)
			if rel, err := filepath.Rel(root, p); err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// ConfigSource is the ConfigChange source of a settings file, as Claude
// Code names its own: user_settings, project_settings, local_settings or
// policy_settings. The files Claude Code does not know map to the closest:
// VS Code's hook files are the project's.
func ConfigSource(s Source) string {
	switch s {
	case SourceUser, SourceClaudeUser:
		return "user_settings"
	case SourceLocal, SourceClaudeLocal:
		return "local_settings"
	case SourceManaged:
		return "policy_settings"
	}
	return "project_settings"
}
