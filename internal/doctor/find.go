package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/safetext"
)

// maxEditorSettingsBytes caps an editor's settings file the doctor reads.
const maxEditorSettingsBytes = 4 << 20

// candidate is a path found (or looked for), with the probe that proves it.
type candidate struct {
	Path
	// run probes the path; nil leaves Path's own status (NOT FOUND, a known
	// DOES NOT FIRE, NOT PROBED with its reason).
	run func(ctx context.Context, o Options) (Status, string)
	// fixIfFailed is the fix printed when run does not come back FIRES.
	fixIfFailed string
}

func (c candidate) probe(ctx context.Context, o Options) Path {
	p := c.Path
	if c.run == nil {
		return p
	}
	p.Status, p.Detail = c.run(ctx, o)
	if p.Status != Fires && p.Fix == "" {
		p.Fix = c.fixIfFailed
	}
	return p
}

// lookPath finds an executable named name in the search path dirs (not
// this process's PATH: the doctor looks where the user's shell would).
func lookPath(name, dirs string) string {
	for _, dir := range filepath.SplitList(dirs) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry names whatever the cwd holds
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// The agents the doctor can probe offline behind `wavehooks acp`, by the
// name of their command.
const (
	agentClaudeACP = "claude-agent-acp"
	agentCodexACP  = "codex-acp"
	agentGemini    = "gemini"
)

// findPaths is every path, in the order the report lists them.
func findPaths(o Options) []candidate {
	var out []candidate
	out = append(out, claudeCLI(o))
	out = append(out, vscodeClaude(o))
	for _, a := range []struct{ id, name string }{
		{agentClaudeACP, "claude-agent-acp through wavehooks acp"},
		{agentCodexACP, "codex-acp through wavehooks acp"},
		{agentGemini, "Gemini CLI through wavehooks acp"},
	} {
		c := candidate{Path: Path{ID: a.id, Name: a.name, Status: NotFound}}
		if bin := lookPath(a.id, o.PATH); bin != "" {
			c.Where = bin
			argv := []string{bin}
			if a.id == agentGemini {
				argv = append(argv, "--acp")
			}
			c.run = func(ctx context.Context, o Options) (Status, string) {
				return probeACP(ctx, o, o.Self, argv, nil)
			}
			c.fixIfFailed = acpFailedFix
		} else {
			c.Detail = a.id + " is not on PATH"
		}
		out = append(out, c)
	}
	codex := candidate{Path: Path{ID: "codex", Name: "Codex CLI (codex)", Status: NotFound, Detail: "codex is not on PATH"}}
	if bin := lookPath("codex", o.PATH); bin != "" {
		codex.Where, codex.Status = bin, NotProbed
		codex.Detail = "codex runs its own hook files, which wavehooks does not read or probe yet (issue #40 item 1)"
		codex.Fix = "to run your wavehooks hooks with Codex, start it from an ACP editor through wavehooks acp:\n" + snippet(agentCodexACP)
	}
	out = append(out, codex)
	out = append(out, editorEntries(o, "zed", "Zed", filepath.Join(o.Home, ".config", "zed", "settings.json"))...)
	out = append(out, editorEntries(o, "jetbrains", "JetBrains AI Assistant", filepath.Join(o.Home, ".jetbrains", "acp.json"))...)
	out = append(out, wavehooksVSCode(o), wavehooksNeovim(o))
	return out
}

// claudeCLI is `claude` on PATH, probed with a hook in a temporary project.
func claudeCLI(o Options) candidate {
	c := candidate{Path: Path{ID: "claude-cli", Name: "Claude Code CLI (claude)", Status: NotFound, Detail: "claude is not on PATH"}}
	if bin := lookPath("claude", o.PATH); bin != "" {
		c.Where, c.Detail = bin, ""
		c.run = func(ctx context.Context, o Options) (Status, string) { return probeClaudeCLI(ctx, o, bin) }
		c.fixIfFailed = "Claude Code ran no hook from a project's .claude/settings.json: a managed policy " +
			"(allowManagedHooksOnly, disableAllHooks in managed-settings.json) may turn hooks off; `claude --debug` shows why"
	}
	return c
}

// vscodeDirs are the VS Code flavours' extension directories under home.
func vscodeDirs(home string) []string {
	dirs, _ := filepath.Glob(filepath.Join(home, ".vscode*", "extensions"))
	sort.Strings(dirs)
	return dirs
}

// extensionDirs are the installed extensions with this id prefix
// ("anthropic.claude-code-"), newest name last.
func extensionDirs(home, prefix string) []string {
	var out []string
	for _, d := range vscodeDirs(home) {
		m, _ := filepath.Glob(filepath.Join(d, prefix+"*"))
		for _, e := range m {
			if fi, err := os.Stat(e); err == nil && fi.IsDir() {
				out = append(out, e)
			}
		}
	}
	return out
}

// vscodeClaude is Claude Code's VS Code extension, which does not run the
// user's hooks: said from what it is, not probed (a probe would need VS
// Code itself).
func vscodeClaude(o Options) candidate {
	c := candidate{Path: Path{ID: "claude-vscode", Name: "Claude Code VS Code extension", Status: NotFound,
		Detail: "no anthropic.claude-code-* under ~/.vscode*/extensions"}}
	dirs := extensionDirs(o.Home, "anthropic.claude-code-")
	if len(dirs) == 0 {
		return c
	}
	c.Where = dirs[len(dirs)-1]
	c.Status = DoesNotFire
	c.Detail = "the extension's chat skips hooks (issue #40); not probed: it runs only inside VS Code"
	if bin := bundledClaude(c.Where); bin != "" {
		c.Detail += "; the CLI it bundles is " + tilde(o.Home, bin)
	}
	c.Fix = "Claude Code's VS Code extension skips hooks: use `wavehooks acp` with claude-agent-acp from an ACP " +
		"editor (Zed, JetBrains, Neovim's CodeCompanion), e.g. in ~/.config/zed/settings.json:\n" + snippet(agentClaudeACP)
	return c
}

// bundledClaude is the claude binary inside a Claude Code extension
// directory (resources/native-binary/claude), or "".
func bundledClaude(dir string) string {
	for _, rel := range []string{filepath.Join("resources", "native-binary", "claude"), filepath.Join("resources", "claude-code", "cli.js")} {
		if fi, err := os.Stat(filepath.Join(dir, rel)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, rel)
		}
	}
	return ""
}

// wavehooksVSCode is the wavehooks VS Code extension: probed through the
// server it starts (its bundled server/wavehooks, else wavehooks on PATH).
func wavehooksVSCode(o Options) candidate {
	c := candidate{Path: Path{ID: "wavehooks-vscode", Name: "wavehooks VS Code extension", Status: NotFound,
		Detail: "no wavehooks.wavehooks-* under ~/.vscode*/extensions"}}
	dirs := extensionDirs(o.Home, "wavehooks.wavehooks-")
	if len(dirs) == 0 {
		return c
	}
	c.Where, c.Detail = dirs[len(dirs)-1], ""
	// The extension's order (editors/vscode/src/serverPath.ts): the user's
	// wavehooks.serverPath, else the server its package carries, else PATH.
	if setting, file := vscodeServerPath(o.Home); setting != "" {
		server := setting
		if rest, ok := strings.CutPrefix(server, "~/"); ok {
			server = filepath.Join(o.Home, rest)
		}
		if fi, err := os.Stat(server); err != nil || !filepath.IsAbs(server) || fi.IsDir() {
			c.Status = DoesNotFire
			c.Detail = "wavehooks.serverPath in " + tilde(o.Home, file) + " names " + safetext.Line(setting, 200) + ", which does not exist"
			c.Fix = "set wavehooks.serverPath to the full path of the wavehooks binary, or remove it"
			return c
		}
		return serveCandidate(c, server, "")
	}
	server := filepath.Join(c.Where, "server", "wavehooks")
	if fi, err := os.Stat(server); err != nil || fi.Mode().Perm()&0o111 == 0 {
		server = lookPath("wavehooks", o.PATH)
	}
	return serveCandidate(c, server, "install the .vsix for your platform, set wavehooks.serverPath, or put wavehooks on PATH")
}

// vscodeServerPath is the user's wavehooks.serverPath setting and the
// settings file it is in, from the first VS Code flavour's user settings
// that sets it; "" when none does.
func vscodeServerPath(home string) (string, string) {
	var files []string
	for _, flavour := range []string{"Code", "Code - Insiders", "VSCodium", "Code - OSS"} {
		files = append(files, filepath.Join(home, ".config", flavour, "User", "settings.json"),
			filepath.Join(home, "Library", "Application Support", flavour, "User", "settings.json"))
	}
	for _, f := range files {
		text, err := safefile.ReadFile(f, maxEditorSettingsBytes)
		if err != nil {
			continue
		}
		std, err := hujson.Standardize(text)
		if err != nil {
			continue
		}
		var s struct {
			ServerPath string `json:"wavehooks.serverPath"`
		}
		if json.Unmarshal(std, &s) == nil && s.ServerPath != "" {
			return s.ServerPath, f
		}
	}
	return "", ""
}

// wavehooksNeovim is the Neovim plugin in a package directory or a plugin
// manager's directory, probed through `wavehooks serve` on PATH (its
// default command).
func wavehooksNeovim(o Options) candidate {
	c := candidate{Path: Path{ID: "wavehooks-nvim", Name: "wavehooks Neovim plugin", Status: NotFound,
		Detail: "no lua/wavehooks/init.lua in ~/.local/share/nvim (site/pack, lazy) or ~/.config/nvim/pack"}}
	var found []string
	for _, pattern := range []string{
		filepath.Join(o.Home, ".local", "share", "nvim", "site", "pack", "*", "*", "*", "lua", "wavehooks", "init.lua"),
		filepath.Join(o.Home, ".local", "share", "nvim", "lazy", "*", "lua", "wavehooks", "init.lua"),
		filepath.Join(o.Home, ".config", "nvim", "pack", "*", "*", "*", "lua", "wavehooks", "init.lua"),
	} {
		m, _ := filepath.Glob(pattern)
		found = append(found, m...)
	}
	if len(found) == 0 {
		return c
	}
	c.Where, c.Detail = filepath.Dir(filepath.Dir(filepath.Dir(found[0]))), ""
	return serveCandidate(c, lookPath("wavehooks", o.PATH), "put wavehooks on PATH, or set require('wavehooks').setup({ cmd = … })")
}

// serveCandidate probes an extension through the server binary it starts.
func serveCandidate(c candidate, server, noServerFix string) candidate {
	if server == "" {
		c.Status, c.Detail = DoesNotFire, "the extension finds no wavehooks server to start"
		c.Fix = noServerFix
		return c
	}
	c.run = func(ctx context.Context, o Options) (Status, string) { return probeServe(ctx, o, server) }
	c.fixIfFailed = "`wavehooks serve` ran no hook: run `wavehooks lint` and `wavehooks log`; check `wavehooks version` matches the extension"
	return c
}

// editorServer is one agent entry of an editor's ACP settings: Zed's
// agent_servers and JetBrains' acp.json share this shape.
type editorServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// editorEntries is one line per agent entry of an editor's ACP settings
// file (docs/acp.md, "Editor configuration"), or one NOT FOUND line.
func editorEntries(o Options, id, editor, file string) []candidate {
	missing := candidate{Path: Path{ID: id, Name: editor + " ACP agents", Status: NotFound, Detail: tilde(o.Home, file) + " does not exist"}}
	text, err := safefile.ReadFile(file, maxEditorSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return []candidate{missing}
	}
	bad := func(why string) []candidate {
		return []candidate{{Path: Path{ID: id, Name: editor + " ACP agents", Status: NotProbed, Where: file,
			Detail: why}}}
	}
	if err != nil {
		return bad("cannot read it: " + safetext.Line(err.Error(), 200))
	}
	std, err := hujson.Standardize(text)
	if err != nil {
		return bad("not JSON with comments: " + safetext.Line(err.Error(), 200))
	}
	var doc struct {
		AgentServers map[string]json.RawMessage `json:"agent_servers"`
	}
	if err := json.Unmarshal(std, &doc); err != nil {
		return bad("unexpected shape: " + safetext.Line(err.Error(), 200))
	}
	if len(doc.AgentServers) == 0 {
		missing.Status, missing.Where, missing.Detail = NotFound, file, "no agent_servers in it"
		return []candidate{missing}
	}
	names := make([]string, 0, len(doc.AgentServers))
	for n := range doc.AgentServers {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []candidate
	for _, n := range names {
		var s editorServer
		_ = json.Unmarshal(doc.AgentServers[n], &s) // a field of another shape reads as empty
		out = append(out, editorEntry(o, id, editor, file, n, s))
	}
	return out
}

// knownAgent is which probe-able agent an agent command runs, by the name
// of its program: "" when the doctor has no offline model for it.
func knownAgent(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	base := filepath.Base(argv[0])
	switch {
	case base == agentClaudeACP, base == agentCodexACP:
		return base
	case base == agentGemini && (slices.Contains(argv[1:], "--acp") || slices.Contains(argv[1:], "--experimental-acp")):
		return agentGemini
	}
	return ""
}

// editorEntry judges one agent entry: routed through `wavehooks acp` (probed
// where the agent is one the doctor can run offline), or started directly
// (its hooks do not fire).
func editorEntry(o Options, id, editor, file, name string, s editorServer) candidate {
	c := candidate{Path: Path{ID: id + ":" + name, Name: editor + " agent " + strconvQuote(name), Where: file}}
	if s.Command == "" {
		lower := strings.ToLower(name)
		for _, a := range []string{"claude", "gemini", "codex"} {
			if strings.Contains(lower, a) {
				c.Status = DoesNotFire
				c.Detail = editor + "'s built-in " + name + " entry starts the agent itself, without wavehooks"
				c.Fix = "add a custom entry that starts it through wavehooks acp (docs/acp.md, \"Editor configuration\"):\n" + snippet(agentFor(a))
				return c
			}
		}
		c.Status, c.Detail = NotProbed, "an entry with no command: "+editor+" starts it its own way"
		return c
	}
	if filepath.Base(s.Command) != "wavehooks" || len(s.Args) == 0 || s.Args[0] != "acp" {
		argv := append([]string{s.Command}, s.Args...)
		if a := knownAgent(argv); a != "" || filepath.Base(s.Command) == "claude" || filepath.Base(s.Command) == "codex" {
			c.Status = DoesNotFire
			c.Detail = editor + " starts " + safetext.Line(s.Command, 200) + " directly: no wavehooks hook runs"
			c.Fix = "put wavehooks acp in front of the command:\n" + snippet(agentFor(filepath.Base(s.Command)))
			return c
		}
		c.Status, c.Detail = NotProbed, "it does not start wavehooks acp, and the doctor does not know this agent"
		c.Fix = "start it as `wavehooks acp -- " + safetext.Line(s.Command, 200) + " …` for wavehooks' hooks to run"
		return c
	}
	dash := slices.Index(s.Args, "--")
	if dash < 0 || dash == len(s.Args)-1 {
		c.Status, c.Detail = DoesNotFire, "wavehooks acp has no agent command after --: it exits at once"
		c.Fix = "give the agent after --, e.g. \"args\": [\"acp\", \"--\", \"claude-agent-acp\"]"
		return c
	}
	agent := slices.Clone(s.Args[dash+1:])
	kind := knownAgent(agent)
	if kind == "" {
		c.Status = NotProbed
		c.Detail = "routed through wavehooks acp; the doctor has no offline model for " + safetext.Line(agent[0], 200) +
			", so nothing is claimed (its prompts still run UserPromptSubmit and Stop hooks through the proxy)"
		return c
	}
	wave := s.Command
	if !filepath.IsAbs(wave) {
		if wave = lookPath(s.Command, o.PATH); wave == "" {
			c.Status, c.Detail = DoesNotFire, "wavehooks is not on PATH: the editor cannot start it"
			c.Fix = "give the full path of wavehooks as \"command\""
			return c
		}
	}
	if !filepath.IsAbs(agent[0]) {
		bin := lookPath(agent[0], o.PATH)
		if bin == "" {
			c.Status, c.Detail = DoesNotFire, safetext.Line(agent[0], 200)+" is not on PATH: the proxy cannot start it"
			c.Fix = "install it, or give its full path after --"
			return c
		}
		agent[0] = bin
	}
	// The entry's own flags (before --) are left out: the probe brings
	// its own wave home and project.
	env := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	c.run = func(ctx context.Context, o Options) (Status, string) {
		return probeACP(ctx, o, wave, agent, env)
	}
	c.fixIfFailed = acpFailedFix
	return c
}

// agentFor is the ACP agent a product name is run through.
func agentFor(name string) string {
	switch {
	case strings.Contains(name, "gemini"):
		return agentGemini
	case strings.Contains(name, "codex"):
		return agentCodexACP
	}
	return agentClaudeACP
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", safetext.Line(s, 100)) }

// acpFailedFix is said when a probe through `wavehooks acp` ran no hook.
const acpFailedFix = "the proxy ran no hook for the probe's tool call: run `wavehooks acp --verbose -- AGENT` " +
	"and `wavehooks log`; `wavehooks version` should match the editor's command"

// snippet is the Zed agent_servers entry that runs an agent through
// wavehooks acp, indented for the report (docs/acp.md has every editor's).
func snippet(agent string) string {
	args := `"acp", "--", "` + agent + `"`
	name := "Claude Code (hooks)"
	switch agent {
	case agentGemini:
		args, name = `"acp", "--", "gemini", "--acp"`, "Gemini CLI (hooks)"
	case agentCodexACP:
		name = "Codex (hooks)"
	}
	return `"agent_servers": {` + "\n" +
		`  "` + name + `": {"type": "custom", "command": "wavehooks", "args": [` + args + `]}` + "\n" +
		`}`
}
