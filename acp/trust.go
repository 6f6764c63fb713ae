package acp

import (
	"encoding/json"
	"strings"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// Trust through the editor (issue #26 item 4). A project's own hooks run
// only once the user trusts them; ACP has no trust prompt, so the proxy asks
// with a permission request of its own when a session opens in a project
// whose hooks wait for trust: the same listing `wavehooks trust` shows
// (host.TrustListing, every item escaped), options "Trust" and "Not now".
// "Trust" records exactly what was listed (its hash) in the trust store
// every host reads, and the hooks run from the next event on. Each project
// is asked once per proxy run; the notice says how to trust later.

// Options of the trust question.
const (
	trustOptionYes = "trust"
	trustOptionNo  = "not-now"
)

// offerTrust asks, once per project, whether to trust the project's hooks
// when they wait for trust. The question runs beside the proxy's work: the
// session goes on, untrusted, until the user answers.
func (p *Proxy) offerTrust(st *sessState) {
	w := st.ws
	l := w.Loaded()
	if l.Trusted || !l.NeedsTrust() || !w.firstTrustOffer() {
		return
	}
	p.notice(st, levelWarning, untrustedNotice(w.Root))
	p.asks.Add(1)
	go func() {
		defer p.asks.Done()
		p.askTrust(st, l)
	}()
}

// firstTrustOffer reports whether the project was not offered trust yet,
// and notes that it now is.
func (w *workspace) firstTrustOffer() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	first := !w.trustOffered
	w.trustOffered = true
	return first
}

// untrustedNotice says that a project's hooks do not run and how to trust them.
func untrustedNotice(root string) string {
	return "the hooks of " + safetext.Line(root, 200) + " are not trusted yet, so they do not run. Answer the trust question, " +
		"or run `wavehooks trust --project " + shellQuote(safetext.Line(root, 0)) + "` and send your next prompt"
}

// trustQuestion is the params of the proxy's session/request_permission
// that asks to trust a project: the listing as the tool call's content.
func trustQuestion(acpID, id, root, listing string) acpmsg.RequestPermissionRequest {
	title, kind, status := "Trust the hooks of "+safetext.Line(root, 200)+"?", "other", "pending"
	return acpmsg.RequestPermissionRequest{
		SessionID: acpID,
		ToolCall: acpmsg.ToolCallUpdate{ToolCallID: id, Title: &title, Kind: &kind, Status: &status,
			Content: []json.RawMessage{mustRaw(acpmsg.ToolCallContent{Type: "content", Content: acpmsg.NewText(listing)})}},
		Options: []acpmsg.PermissionOption{
			{OptionID: trustOptionYes, Name: "Trust", Kind: "allow_always"},
			{OptionID: trustOptionNo, Name: "Not now", Kind: "reject_once"},
		},
		Meta: &acpmsg.Meta{Wavehooks: &acpmsg.WavehooksMeta{Trust: true}},
	}
}

// askTrust puts the trust question to the user and records a "Trust" in
// the trust store, for exactly the configuration listed (l's hash): when
// the files changed meanwhile, the new configuration is not trusted.
func (p *Proxy) askTrust(st *sessState, l *trust.Loaded) {
	w := st.ws
	id := p.ownID("trust")
	listing := host.TrustListing(w.Root, l) + "\nTrust runs them from your next prompt on; it is kept in the trust store " +
		"`wavehooks trust --revoke` clears."
	answer := p.call(p.ctx, true, id, methodRequestPermission, trustQuestion(st.acpID, strings.Trim(string(id), `"`), w.Root, listing))
	if answer == nil || answer.Error != nil {
		return
	}
	var res acpmsg.RequestPermissionResponse
	_ = decode(answer.Result, &res)
	if res.Outcome.Outcome != "selected" || res.Outcome.OptionID != trustOptionYes {
		p.log.Info("the user did not trust the project's hooks", "project", w.Root)
		return
	}
	defer p.flush()
	if err := w.Trust.Trust(w.Root, l.Hash); err != nil {
		p.notice(st, levelError, "the trust could not be recorded ("+err.Error()+"); the hooks still do not run")
		return
	}
	if again := w.Reload(); !again.Trusted {
		p.notice(st, levelWarning, "the project's hooks, settings or scripts changed while you were asked, so they are still not trusted: "+
			strings.TrimSuffix(untrustedNotice(w.Root), " and send your next prompt"))
		return
	}
	p.log.Info("the user trusted the project's hooks", "project", w.Root)
	p.notice(st, levelInfo, "trusted "+safetext.Line(w.Root, 200)+": its hooks run from now on")
}
