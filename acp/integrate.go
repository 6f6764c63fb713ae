package acp

import (
	"os"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/safefile"
	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
)

// agentCommand is the agent's command as the proxy starts it: for an agent
// whose hook goes on its command line (codex-acp), with the bridge's hook
// added by its integration. A bridge that cannot start, or a command the
// integration cannot extend, leaves the command as it is; the error then
// refuses every session (withBridge), so that no session runs tools no hook
// sees.
func (p *Proxy) agentCommand(command []string) []string {
	ig := agents.For("", command)
	if ig == nil || !ig.BeforeStart() {
		return command
	}
	b, err := p.startBridge()
	if err == nil {
		var withHook []string
		if withHook, err = ig.Command(command, b.command); err == nil {
			b.serves(ig)
			_, why := ig.HTTPHooks(command, p.opts.AgentEnv, func(string) ([]byte, error) { return nil, os.ErrNotExist })
			p.log.Info("the hook bridge answers "+ig.Name()+"'s PreToolUse hook through "+b.client+", a process per tool call", "why", why)
			return withHook
		}
		p.mu.Lock()
		b.err = err
		p.mu.Unlock()
	}
	p.log.Error(ig.Name()+"'s tool calls cannot be hooked in every mode; its sessions are refused", "err", err)
	return command
}

// bridgeAgent starts the bridge, once the agent's initialize answer named
// it, for an agent whose hook goes into each session it opens
// (claude-agent-acp).
func (p *Proxy) bridgeAgent(agentName string) {
	ig := agents.For(agentName, p.opts.Agent)
	if ig == nil || ig.BeforeStart() {
		return
	}
	b, err := p.startBridge()
	b.serves(ig)
	if err != nil {
		p.log.Error("the agent's tool calls are hooked only at its permission requests", "err", err)
		return
	}
	ok, why := ig.HTTPHooks(p.opts.Agent, p.opts.AgentEnv, func(path string) ([]byte, error) {
		return safefile.ReadFile(path, hooksettings.MaxSettingsFileBytes)
	})
	if ok {
		var h *agents.HTTPHook
		if h, err = b.startHTTP(); err == nil {
			p.log.Info("the hook bridge answers "+ig.Name()+"'s PreToolUse hook over http on loopback, with no process per tool call",
				"why", why, "url", h.URL)
			return
		}
		why = err.Error()
	}
	p.log.Info("the hook bridge answers "+ig.Name()+"'s PreToolUse hook through "+b.client+", a process per tool call", "why", why)
}
