package acp

import (
	"context"
	"errors"
	"strings"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/session"
)

// fire runs one event of a session through the session package, which
// records it in the transcript and runs the hooks. When the session's file
// cannot be written (a full disk, a directory made read-only), the session
// moves into memory (sessState.toMemory), the editor is told, and an event
// whose hooks had not run yet runs them there: a session whose state cannot
// be kept still runs every hook. ok is false when the hooks' answer is not
// known even so: the caller then fails closed where the event guards
// something (a deny, a prompt not sent).
func (p *Proxy) fire(ctx context.Context, st *sessState, ev event.Event, matchValue string,
	f func(context.Context) (session.Outcome, error)) (session.Outcome, bool) {
	if hooksMayRun(st.ws, ev, matchValue) {
		p.flush() // what came before the event reaches its side before the hooks take their time
	}
	out, err := f(ctx)
	var invalid *flow.InvalidError
	if err != nil && !errors.As(err, &invalid) {
		if st.toMemory() {
			p.log.Warn("the session's transcript cannot be written; it is kept in memory from now on",
				"event", ev, "session", st.acpID, "err", err)
			p.notice(st, levelError, "this session's transcript can no longer be written ("+err.Error()+
				"): its hooks keep running, on the session kept in memory, and nothing more of it is saved")
		}
		switch {
		case out.Result.Event == "" && st.inMemory.Load():
			out, err = f(ctx) // the hooks had not run: they run on the session in memory
		case out.Result.Event != "":
			err = nil // the hooks ran and answered; only saving their answer failed
		}
	}
	if err != nil {
		p.log.Warn("hooks did not run: the session could not be recorded", "event", ev, "match", matchValue,
			"session", st.acpID, "err", err)
		return out, false
	}
	return out, true
}

// hooksMayRun says whether a hook may run for an event whose matcher value
// is matchValue (hooks.Engine.MayRun), so that fire flushes only before
// hooks that may take their time: every finished tool call fires
// PostToolUse, and a flush where no hook matches was one more write to the
// editor per call, in the middle of a burst the reader would have sent in
// one (BenchmarkForwarding). An event whose matcher reads a field other than
// the tool name, source or reason flushes, as does an empty value.
func hooksMayRun(ws *workspace, ev event.Event, matchValue string) bool {
	in := event.Input{Event: ev, ToolName: matchValue, Source: matchValue, Reason: matchValue}
	if ev.UsesMatcher() && (matchValue == "" || in.MatchValue() != matchValue) {
		return true
	}
	return ws.Engine.MayRun(in)
}

// finish ends an event as every host does (host.Finish): the run is
// recorded with note, what the proxy did with the hooks' decision, and
// logged; what hooks said for the user is shown (surface).
func (p *Proxy) finish(st *sessState, ev event.Event, matchValue string, out *session.Outcome, note string) {
	sessionID := st.session().ID()
	rep := p.host.Finish(sessionID, matchValue, out, note)
	if rep.Recorded {
		p.logRun(rep.Run, matchValue, sessionID)
	}
	p.surface(st, ev, rep.Notices)
}

// record adds an event to the run history when any hook was configured for
// it, and logs it to stderr, where editors keep an agent's log, for an
// event whose blocks are shown later or not at all.
func (p *Proxy) record(st *sessState, matchValue string, out *session.Outcome, note string) {
	sessionID := st.session().ID()
	if run, ok := p.host.Record(sessionID, matchValue, &out.Result, note); ok {
		p.logRun(run, matchValue, sessionID)
	}
}

// logRun logs a recorded run to stderr, where editors keep an agent's log.
func (p *Proxy) logRun(run hooks.EventRun, matchValue, sessionID string) {
	p.log.Info("hooks ran", "event", run.Event, "match", matchValue, "session", sessionID, "outcome", run.Outcome)
}

// recordNote adds to the history something the proxy could not let hooks
// decide, so that "why did my hook not stop this?" has an answer there too.
func (p *Proxy) recordNote(st *sessState, ev event.Event, matchValue, outcome string) {
	run := p.host.History.Add(hooks.EventRun{SessionID: st.session().ID(), Event: ev, MatchValue: matchValue,
		Hooks: []hooks.Run{}, Outcome: outcome})
	p.log.Info("not enforced", "event", run.Event, "match", matchValue, "session", run.SessionID, "outcome", outcome)
}

// surface shows the user what hooks said (host.Notices) as agent message
// chunks marked as from a hook (ACP has no other channel to the user's eyes).
func (p *Proxy) surface(st *sessState, ev event.Event, notices []host.Notice) {
	for _, n := range notices {
		p.hookMessage(st, ev, string(n.Level), n.Text)
	}
}

// notice sends the editor a message of the proxy's own about a session
// (its transcript cannot be kept, a message was refused), marked like a hook
// message but naming no hook: "[wavehooks] <text>", with _meta.wavehooks
// carrying the level and "notice": true.
func (p *Proxy) notice(st *sessState, level, text string) {
	p.noticeTo(st.acpID, level, text)
}

func (p *Proxy) noticeTo(acpID, level, text string) {
	p.sendEditor(notificationLine(methodSessionUpdate, acpmsg.SessionNotification{
		SessionID: acpID,
		Update: acpmsg.AgentMessageChunk{
			SessionUpdate: acpmsg.UpdateAgentMessageChunk,
			MessageID:     p.messageID(),
			Content:       acpmsg.NewText("\n\n[wavehooks] " + level + ": " + strings.TrimSpace(text) + "\n\n"),
			Meta:          &acpmsg.Meta{Wavehooks: &acpmsg.WavehooksMeta{Notice: true, Level: level}},
		},
	}))
}

// Levels of a hook message.
const (
	levelInfo    = "info"
	levelWarning = "warning"
	levelError   = "error"
)

// hookMessage sends the editor an agent_message_chunk that says it comes
// from a hook, in its text (for the person reading) and in _meta.wavehooks
// (for an editor or script that tells them apart).
func (p *Proxy) hookMessage(st *sessState, ev event.Event, level, text string) {
	label := "[wavehooks] " + string(ev) + " hook"
	if level != levelInfo {
		label += " " + level
	}
	p.sendEditor(notificationLine(methodSessionUpdate, acpmsg.SessionNotification{
		SessionID: st.acpID,
		Update: acpmsg.AgentMessageChunk{
			SessionUpdate: acpmsg.UpdateAgentMessageChunk,
			MessageID:     p.messageID(),
			Content:       acpmsg.NewText("\n\n" + label + ": " + strings.TrimSpace(text) + "\n\n"),
			Meta:          &acpmsg.Meta{Wavehooks: &acpmsg.WavehooksMeta{HookEvent: string(ev), Level: level}},
		},
	}))
}

// marked prefixes each context text with the event it came from, as the
// model sees hook context in `wavehooks serve`'s apiMessages.
func marked(ev event.Event, texts []string) []string {
	out := make([]string, 0, len(texts))
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			out = append(out, "[Hook:"+string(ev)+"] "+t)
		}
	}
	return out
}

// flushText records the agent's message streamed so far in the transcript.
func (p *Proxy) flushText(st *sessState) {
	p.saveText(st, st.takeText())
}

func (p *Proxy) saveText(st *sessState, text string) {
	if text == "" {
		return
	}
	if err := st.session().AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: text}}); err != nil {
		p.log.Warn("the agent's message could not be recorded", "session", st.acpID, "err", err)
	}
}
