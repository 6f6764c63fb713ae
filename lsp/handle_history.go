package lsp

import (
	"context"

	"github.com/wavehooks/wavehooks/internal/event"
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
	return &HookRunsResult{Runs: s.allRuns(p.SessionID, event.Event(p.Event), p.Limit)}, nil
}
