// Package host is what every wavehooks host shares: opening a workspace
// (settings, trust, engine, session store, reload, delegation, async
// delivery) and running one event end to end (fire, the rules, the run
// history, what to surface). The LSP server (lsp), the ACP proxy (acp) and
// the CLI (`wavehooks run`, `demo`) are adapters around it: they decode
// what their side sends, call the host, and encode its answer. Before this
// package the four wired a workspace up each their own way, and differed in
// trust, stale handling, delegation and async delivery (issue #25); a rule
// that belongs to every host lives here once.
//
// host depends on hooks, flow and session, never on an adapter.
package host

import (
	"io"
	"log/slog"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Config is the configuration every host shares; lsp.Options and
// acp.Options keep their own fields (their callers set them by name) and
// build a Config from them, so that the two cannot drift apart again.
type Config struct {
	// WaveHome holds settings.json, the sessions and the trust store.
	WaveHome string
	// ClaudeHome is ~/.claude, read when importClaudeHooks is set.
	ClaudeHome string
	// ManagedFile is the managed (policy) settings file; "" reads none.
	ManagedFile string
	// AgentHomes are the user directories of other agents' hook files
	// (settings.DefaultAgentHomes), read for the agents importAgentHooks names.
	AgentHomes map[agentfmt.Agent]string
	// AgentSession is the agent whose own hooks do not all fire where this
	// host runs it (the ACP proxy's Gemini CLI): settings.Paths.AgentSession.
	AgentSession agentfmt.Agent
	// ClaudeManagedDir is Claude Code's managed settings directory
	// (settings.Paths.ClaudeManagedDir); "" reads none.
	ClaudeManagedDir string
	// TrustWorkspace runs the project's own hooks without asking
	// (--trust-workspace, or the editor's trustWorkspaceHooks).
	TrustWorkspace bool
	// HistorySize bounds the hook-run history (500).
	HistorySize int
	// SaveBeforeHooks writes transcripts only when a hook may read them, at
	// Session.Flush and at close (session.Options.SaveBeforeHooks): the ACP
	// proxy's choice, since nobody waits on its saves.
	SaveBeforeHooks bool
	// Logger receives the host's log; nil discards it.
	Logger *slog.Logger
}

// Paths are the settings files of the workspace at root.
func (c *Config) Paths(root string) settings.Paths {
	return settings.Paths{WaveHome: c.WaveHome, ProjectRoot: root, ClaudeHome: c.ClaudeHome, ManagedFile: c.ManagedFile,
		ClaudeManagedDir: c.ClaudeManagedDir, AgentHomes: c.AgentHomes, AgentSession: c.AgentSession}
}

// Host is one process's hosting of hooks: its configuration and the one
// run history every workspace it opens records into.
type Host struct {
	cfg     Config
	log     *slog.Logger
	History *hooks.History
}

// New returns a host with the given configuration.
func New(c Config) *Host {
	log := c.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Host{cfg: c, log: log, History: hooks.NewHistory(c.HistorySize)}
}

// Config is the host's configuration.
func (h *Host) Config() Config { return h.cfg }

// Record adds an event to the run history when any hook was configured for
// it; note says what happened after the hooks (the user's answer to an ask,
// what the proxy did with the decision). It is the one run-history record
// of every host.
func (h *Host) Record(sessionID, matchValue string, res *hooks.Result, note string) (hooks.EventRun, bool) {
	if len(res.Runs) == 0 {
		return hooks.EventRun{}, false
	}
	run := hooks.NewEventRun(sessionID, matchValue, res)
	if note != "" {
		run.Outcome += "; " + note
	}
	return h.History.Add(run), true
}
