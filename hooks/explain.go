package hooks

import (
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Explain tells a person, in plain text, what happened to every configured
// hook of one event: whether its matcher matched and why, why it was
// skipped, or what it received, printed and decided. It is printed to a
// terminal, and most of it comes from a repository or a hook (commands,
// status messages, reasons, output): every such text is escaped
// (safetext), so that it is read, never acted on.
func Explain(r EventRun) string {
	var b strings.Builder
	line := func(s string) string { return safetext.Line(s, 0) }
	fmt.Fprintf(&b, "%s", line(string(r.Event)))
	if r.MatchValue != "" {
		fmt.Fprintf(&b, " (matched on %q)", r.MatchValue)
	}
	fmt.Fprintf(&b, ": %s\n", line(r.Outcome))
	if len(r.Hooks) == 0 {
		fmt.Fprintf(&b, "  no hook is configured for %s in any settings file\n", line(string(r.Event)))
	}
	for i, h := range r.Hooks {
		fmt.Fprintf(&b, "\n  hook %d: %s\n    from %s settings %s\n", i+1, line(h.Command), line(h.Source.String()), line(h.File))
		if h.Matcher != "" {
			fmt.Fprintf(&b, "    matcher %q: %s\n", h.Matcher, line(h.Why))
		}
		if h.If != "" {
			fmt.Fprintf(&b, "    if %q: %s\n", h.If, line(h.IfWhy))
		}
		if h.StatusMessage != "" {
			fmt.Fprintf(&b, "    status message: %s\n", line(h.StatusMessage))
		}
		switch {
		case !h.Matched:
			b.WriteString("    did not run: the matcher does not match\n")
			continue
		case h.Skipped != "":
			fmt.Fprintf(&b, "    did not run: %s\n", line(h.Skipped))
			continue
		case h.Async && !h.Ran:
			fmt.Fprintf(&b, "    %s\n", line(h.Decision))
			continue
		case h.Async:
			b.WriteString("    ran in the background (async): what it said was reported, not applied\n")
		}
		status := fmt.Sprintf("exit %d", h.ExitCode)
		switch {
		case h.HTTPStatus != 0:
			status = fmt.Sprintf("HTTP %d", h.HTTPStatus)
		case h.Type != "" && h.Type != settings.TypeCommand:
			status = "the agent host answered"
		}
		if h.TimedOut {
			status = "timed out"
		}
		fmt.Fprintf(&b, "    ran in %s: %s\n", h.Duration.Round(100_000), status)
		if h.JSON {
			b.WriteString("    stdout was read as JSON\n")
		}
		for _, p := range h.Problems {
			fmt.Fprintf(&b, "    problem: %s\n", line(p))
		}
		fmt.Fprintf(&b, "    decision: %s\n", line(h.Decision))
		writeIndented(&b, "stdout", h.Stdout, h.StdoutTruncated)
		writeIndented(&b, "stderr", h.Stderr, h.StderrTruncated)
	}
	if r.Stdin != "" {
		fmt.Fprintf(&b, "\n  stdin every hook received:\n    %s\n", line(strings.TrimSpace(r.Stdin)))
	}
	// What hooks printed (a terminalSequence among it) went through
	// safetext above: it is shown, never played on the reader's terminal.
	return b.String()
}

func writeIndented(b *strings.Builder, name, text string, truncated bool) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	const max = 2000
	if len(text) > max {
		text, truncated = text[:max], true
	}
	fmt.Fprintf(b, "    %s:\n      %s\n", name, strings.ReplaceAll(safetext.Block(text), "\n", "\n      "))
	if truncated {
		fmt.Fprintf(b, "      [%s truncated]\n", name)
	}
}
