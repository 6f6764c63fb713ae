package acp

import (
	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// hookRuns answers _wavehooks/hookRuns with the run history, newest first,
// as `wavehooks serve` answers wave/hookRuns.
func (p *Proxy) hookRuns(m *message) {
	var params acpmsg.HookRunsRequest
	if err := decode(m.Params, &params); err != nil {
		p.toEditor(m, errorLine(m.ID, rpcerr.InvalidParams, "wavehooks: invalid params: "+err.Error(), nil))
		return
	}
	if params.SessionID != "" {
		p.mu.Lock()
		if st := p.sessions[params.SessionID]; st != nil {
			params.SessionID = st.session().ID()
		}
		p.mu.Unlock()
	}
	p.toEditor(m, resultLine(m.ID, acpmsg.HookRunsResponse[hooks.EventRun]{
		Runs: p.host.History.List(params.SessionID, event.Event(params.Event), params.Limit)}))
}
