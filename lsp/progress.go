package lsp

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
)

// progressTasks maps progress tokens to the requests they report on, so the
// editor's Cancel button cancels the request and kills its hooks.
type progressTasks struct {
	seq     atomic.Int64
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

func newProgressTasks() *progressTasks {
	return &progressTasks{cancels: map[string]context.CancelFunc{}}
}

// startProgress shows work-done progress if the hooks of an event are still
// running after ProgressDelay. The event must run with the returned context,
// which the editor's Cancel button cancels, and call done when it ends. end
// ends the progress alone, earlier (an ask: the hooks are done, the user is
// asked now); both may be called more than once. Fast events cost one timer
// and send nothing.
//
// title is called only when progress is shown, so the cost of naming it
// stays off the path of every fast event.
func (s *Server) startProgress(ctx context.Context, title func() string) (_ context.Context, end, done func()) {
	if !s.progress {
		return ctx, func() {}, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	token := "wavehooks-" + strconv.FormatInt(s.progressTask.seq.Add(1), 10)
	var mu sync.Mutex
	started, finished := false, false
	timer := time.AfterFunc(s.opts.ProgressDelay, func() {
		if _, err := s.conn.Call(ctx, protocol.MethodWorkDoneProgressCreate,
			&protocol.WorkDoneProgressCreateParams{Token: *protocol.NewProgressToken(token)}, nil); err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		started = true
		s.progressTask.mu.Lock()
		s.progressTask.cancels[token] = cancel
		s.progressTask.mu.Unlock()
		s.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *protocol.NewProgressToken(token),
			Value: &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title(), Cancellable: true,
				Message: "running hooks…"}})
	})
	end = func() {
		timer.Stop()
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		finished = true
		if started {
			s.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *protocol.NewProgressToken(token),
				Value: &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd}})
			s.progressTask.mu.Lock()
			delete(s.progressTask.cancels, token)
			s.progressTask.mu.Unlock()
		}
	}
	return ctx, end, func() {
		end()
		cancel()
	}
}

func (s *Server) cancelProgress(_ context.Context, p *protocol.WorkDoneProgressCancelParams) {
	token := p.Token.String()
	s.progressTask.mu.Lock()
	cancel := s.progressTask.cancels[token]
	s.progressTask.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
