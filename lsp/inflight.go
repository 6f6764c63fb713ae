package lsp

import (
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// inflight maps the ids of requests being handled to their cancel functions,
// for $/cancelRequest. Ids are jsonrpc2.IDs decoded from the wire, so numeric
// and string ids both work (protocol.CancelHandler misses numeric ones).
type inflight struct {
	mu        sync.Mutex
	cancels   map[jsonrpc2.ID]func()
	cancelled map[jsonrpc2.ID]bool // by $/cancelRequest, until the request is answered
}

func newInflight() *inflight {
	return &inflight{cancels: map[jsonrpc2.ID]func(){}, cancelled: map[jsonrpc2.ID]bool{}}
}

func (f *inflight) add(id jsonrpc2.ID, cancel func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels[id] = cancel
}

func (f *inflight) remove(id jsonrpc2.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.cancels, id)
	delete(f.cancelled, id)
}

// wasCancelled reports whether the client cancelled the request.
func (f *inflight) wasCancelled(id jsonrpc2.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cancelled[id]
}

func (f *inflight) cancel(id jsonrpc2.ID) bool {
	f.mu.Lock()
	cancel, ok := f.cancels[id]
	if ok {
		f.cancelled[id] = true
	}
	f.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

func (f *inflight) cancelAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.cancels {
		c()
	}
}

// cancelRequest handles $/cancelRequest: the request's context is cancelled,
// which kills its running hooks and denies its pending ask.
func (s *Server) cancelRequest(raw json.RawMessage) {
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		s.log.Debug("bad $/cancelRequest", "err", err)
		return
	}
	s.inflight.cancel(p.ID)
}
