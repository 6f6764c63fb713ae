package lsp

import (
	"context"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/telemetry"
)

// hookRuns answers "why did (or didn't) my hook run?": the recorded events,
// newest first, with every configured hook's story: this server's and
// those other processes (the ACP proxy) wrote to the run log (runlogfeed.go).
func (s *Server) hookRuns(_ context.Context, p *HookRunsParams) (*HookRunsResult, error) {
	if p.Event != "" {
		if _, ok := event.Spec(event.Event(p.Event)); !ok {
			return nil, badParam("event", "unknown event %q", p.Event)
		}
	}
	if p.Limit < 0 {
		return nil, badParam("limit", "must not be negative")
	}
	res := &HookRunsResult{Runs: s.allRuns(p.SessionID, event.Event(p.Event), p.Limit)}
	if s.waveHome != "" {
		// Every process of the wave home counts its drops there; a count
		// that cannot be read shows as none rather than failing the view.
		res.TelemetryDropped, _, _ = telemetry.Drops(hooks.RunLogDir(s.waveHome))
	}
	return res, nil
}
