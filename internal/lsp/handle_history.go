package lsp

import (
	"context"

	"github.com/wavehooks/wavehooks/internal/event"
)

func init() {
	register(methodHookRuns, request((*Server).hookRuns))
}

// hookRuns answers "why did (or didn't) my hook run?": the recorded events,
// newest first, with every configured hook's story.
func (s *Server) hookRuns(_ context.Context, p *HookRunsParams) (*HookRunsResult, error) {
	if p.Event != "" {
		if _, ok := event.Spec(event.Event(p.Event)); !ok {
			return nil, badParam("event", "unknown event %q", p.Event)
		}
	}
	if p.Limit < 0 {
		return nil, badParam("limit", "must not be negative")
	}
	return &HookRunsResult{Runs: s.history.List(p.SessionID, event.Event(p.Event), p.Limit)}, nil
}
