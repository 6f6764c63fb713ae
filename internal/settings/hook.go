package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Display is the hook's command as a person reads it: the shell command, or
// for the exec form the program and its arguments, quoted where needed.
func (h *Hook) Display() string {
	if h.Type != "" && h.Type != TypeCommand {
		return h.typeDisplay()
	}
	if h.Args == nil {
		return h.Command
	}
	parts := make([]string, 0, 1+len(h.Args))
	parts = append(parts, shellQuote(h.Command))
	for _, a := range h.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// Describe is Display with the options that change what the hook does
// (directory, environment, background, a timeout that is not the default,
// the status message it shows): what the user trusts when trusting a
// workspace's hooks.
func (h *Hook) Describe() string {
	var opts []string
	if h.Cwd != "" {
		opts = append(opts, "in "+h.Cwd)
	}
	if len(h.Env) > 0 {
		opts = append(opts, "with "+strings.Join(h.Env, " "))
	}
	if h.Async {
		opts = append(opts, "in the background")
	}
	if h.If != nil {
		opts = append(opts, "if "+h.If.String())
	}
	opts = append(opts, h.describeOptions()...)
	if d := h.defaultTimeout(); h.Timeout != d && d != 0 {
		opts = append(opts, "timeout "+h.Timeout.String())
	}
	if h.StatusMessage != "" {
		opts = append(opts, "showing "+strconv.Quote(h.StatusMessage))
	}
	if len(opts) == 0 {
		return h.Display()
	}
	return h.Display() + " (" + strings.Join(opts, ", ") + ")"
}

// defaultTimeout is the timeout the hook has when its configuration sets
// none, so that Describe shows a timeout only when one is set.
func (h *Hook) defaultTimeout() time.Duration {
	switch h.Type {
	case TypePrompt:
		return DefaultPromptTimeout
	case TypeAgent:
		return DefaultAgentTimeout
	}
	return defaultTimeout(h.Event, h.Source)
}

// RunKey identifies what a hook runs: hooks with the same key run once per event.
func (h *Hook) RunKey() string {
	var b strings.Builder
	b.WriteString(h.Command)
	if h.Args != nil {
		b.WriteString("\x00args")
		for _, a := range h.Args {
			b.WriteString("\x00" + a)
		}
	}
	if h.Cwd != "" || len(h.Env) > 0 || h.Async {
		b.WriteString("\x01" + h.Cwd + "\x01" + strings.Join(h.Env, "\x00"))
		if h.Async {
			b.WriteString("\x01async")
		}
	}
	if h.If != nil {
		b.WriteString("\x01if\x00" + h.If.raw)
	}
	b.WriteString(h.typeKey())
	if a := h.Source.Agent(); a != "" {
		// Another agent's hook reads that agent's stdin: it is the same
		// run only as a hook of the same agent's same event.
		b.WriteString("\x01agent\x00" + string(a) + "\x00" + h.AgentEvent)
	}
	if h.OnFailure == OnFailureBlock {
		// Its failure is read differently: it runs on its own.
		b.WriteString("\x01onFailure")
	}
	return b.String()
}

// shellQuote quotes s for sh when it holds anything but plain word characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func Seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}
