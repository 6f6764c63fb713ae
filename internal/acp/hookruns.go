package acp

import (
	"github.com/wavehooks/wavehooks/internal/event"
)

// hookRuns answers _wavehooks/hookRuns with the run history, newest first,
// as `wavehooks serve` answers wave/hookRuns.
func (p *Proxy) hookRuns(m *message) {
	var params struct {
		SessionID string      `json:"sessionId"`
		Event     event.Event `json:"event"`
		Limit     int         `json:"limit"`
	}
	if err := decode(m.Params, &params); err != nil {
		p.toEditor(m, errorLine(m.ID, codeInvalidParams, "wavehooks: invalid params: "+err.Error(), nil))
		return
	}
	if params.SessionID != "" {
		p.mu.Lock()
		if st := p.sessions[params.SessionID]; st != nil {
			params.SessionID = st.session().ID()
		}
		p.mu.Unlock()
	}
	p.toEditor(m, resultLine(m.ID, map[string]any{"runs": p.host.History.List(params.SessionID, params.Event, params.Limit)}))
}
