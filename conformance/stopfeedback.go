//go:build linux

package conformance

import (
	"fmt"
	"strings"
)

// The texts Claude Code hands the model around a Stop hook's answer
// (measured with 2.1.330 and 2.1.332: scenarios stop-block, stop-exit2,
// stop-exit2-json, stop-context).
const (
	stopFeedbackHead = "Stop hook feedback:"                     // a block's feedback, every release
	stopContextHead  = "Stop hook additional context: "          // additionalContext, in a <system-reminder>
	stopErrorHead    = "Stop hook blocking error from command: " // the system message that follows a block
)

// CheckStopFeedback reads the texts that carried a Stop hook's TOK_ texts to
// Claude Code's model as this release sends them, and says what does not
// fit. A block's feedback is a user message that starts with "Stop hook
// feedback:" before 2.1.331; from 2.1.331 on it is wrapped in
// <system-reminder>, with a lead sentence before that line ("The text below
// is the output of a hook…", shorter in 2.1.331 than in 2.1.332). The suite
// compares where a text reached the model, not its wrapping; this check
// keeps the suite's reading of the oracle tied to the release it runs, so
// that a change of form in a later release is seen, not silently read.
func CheckStopFeedback(version string, s *Scenario, o *Observation) error {
	reminder := versionAtLeast(version, stopReminderSince)
	for _, h := range s.Hooks {
		if h.Event != "Stop" {
			continue
		}
		for _, tok := range tokenPattern.FindAllString(h.Answer, -1) {
			for _, m := range o.Model {
				if m.Channel != ChannelConversation || !strings.Contains(m.Text, tok) {
					continue
				}
				if err := stopText(reminder, m.Text); err != nil {
					return fmt.Errorf("the model got %q from Claude Code %s in a form the suite does not know: %w", tok, version, err)
				}
			}
		}
	}
	return nil
}

// stopText checks one text that carried a Stop hook's answer.
func stopText(reminder bool, text string) error {
	inner, wrapped := strings.CutPrefix(text, "<system-reminder>\n")
	if wrapped {
		var ok bool
		if inner, ok = strings.CutSuffix(strings.TrimRight(inner, "\n"), "</system-reminder>"); !ok {
			return fmt.Errorf("a <system-reminder> that does not close: %.80q", text)
		}
	}
	switch {
	case strings.HasPrefix(text, stopErrorHead):
		return nil // the system message after a block, in every release
	case wrapped && strings.HasPrefix(inner, stopContextHead):
		return nil // additionalContext, in every release
	case !strings.Contains(text, stopFeedbackHead):
		return fmt.Errorf("neither feedback, context nor the block's system message: %.80q", text)
	case reminder && !wrapped:
		return fmt.Errorf("the feedback is not wrapped in <system-reminder> (releases from %s wrap it): %.80q", stopReminderSince, text)
	case reminder && !strings.Contains(strings.SplitN(inner, stopFeedbackHead, 2)[0], "hook"):
		return fmt.Errorf("the wrapped feedback has no lead sentence about the hook before %q: %.80q", stopFeedbackHead, text)
	case !reminder && !strings.HasPrefix(text, stopFeedbackHead):
		return fmt.Errorf("the feedback does not start with %q (releases before %s send it so): %.80q", stopFeedbackHead, stopReminderSince, text)
	}
	return nil
}
