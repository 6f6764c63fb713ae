package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/session"
)

// Titles of the two answers to an ask prompt; clients match on them.
const (
	titleAllow = "Allow"
	titleDeny  = "Deny"
)

// pendingAsk is one PreToolUse "ask" waiting for the user. Whichever channel
// answers first (the message prompt, a code action, wave/resolvePermission,
// the timeout, a disconnect) decides; the others find it decided.
type pendingAsk struct {
	PendingPermission
	file    string // the tool input's file_path, for the diagnostic; "" if none
	created time.Time

	once    sync.Once
	decided chan struct{}
	allow   bool
	by      string
}

func (a *pendingAsk) decide(allow bool, by string) bool {
	won := false
	a.once.Do(func() {
		a.allow, a.by, won = allow, by, true
		close(a.decided)
	})
	return won
}

// askBook holds the pending asks of every session.
type askBook struct {
	mu      sync.Mutex
	seq     int
	pending map[string]*pendingAsk
}

func newAskBook() *askBook { return &askBook{pending: map[string]*pendingAsk{}} }

func (b *askBook) open(req session.AskRequest) *pendingAsk {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	a := &pendingAsk{
		PendingPermission: PendingPermission{ID: "ask-" + strconv.Itoa(b.seq), SessionID: req.SessionID, ToolName: req.ToolName,
			ToolInput: req.ToolInput, Reason: req.Reason},
		created: time.Now(),
		decided: make(chan struct{}),
	}
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(req.ToolInput, &in) == nil && filepath.IsAbs(in.FilePath) {
		a.file = filepath.Clean(in.FilePath)
	}
	b.pending[a.ID] = a
	return a
}

func (b *askBook) close(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pending, id)
}

func (b *askBook) get(id string) *pendingAsk {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pending[id]
}

// resolve decides an ask; false if it is unknown or was already decided.
func (b *askBook) resolve(id string, allow bool, by string) bool {
	a := b.get(id)
	return a != nil && a.decide(allow, by)
}

func (b *askBook) list() []PendingPermission {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*pendingAsk, 0, len(b.pending))
	for _, a := range b.pending {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].created.Before(out[j].created) })
	list := make([]PendingPermission, len(out))
	for i, a := range out {
		list[i] = a.PendingPermission
	}
	return list
}

// onFile lists the pending asks about one file, for its diagnostics and code actions.
func (b *askBook) onFile(path string) []*pendingAsk {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*pendingAsk
	for _, a := range b.pending {
		if a.file == path {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].created.Before(out[j].created) })
	return out
}

func (b *askBook) denyAll(by string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.pending {
		a.decide(false, by)
	}
}

// askEnding is the server's ask for an event whose progress endProgress
// ends first: while an ask waits for the user, no hook is running, and the
// editor must not say one is.
func (s *Server) askEnding(endProgress func()) session.AskFunc {
	return func(ctx context.Context, req session.AskRequest) bool {
		endProgress()
		return s.ask(ctx, req)
	}
}

// ask is the session.AskFunc of the server (through askEnding): it asks the user through
// window/showMessageRequest and, when the tool touches a file, through a
// diagnostic with Allow/Deny code actions on that file, and returns the
// first answer. The ask times out as a deny; a cancelled request or a lost
// editor deny too.
func (s *Server) ask(ctx context.Context, req session.AskRequest) bool {
	a := s.asks.open(req)
	defer func() {
		s.asks.close(a.ID)
		if a.file != "" {
			s.publishDiagnostics(uri.File(a.file)) // withdraw the ask's diagnostic
		}
	}()
	if a.file != "" {
		s.publishDiagnostics(uri.File(a.file))
	}
	promptCtx, withdraw := context.WithCancel(s.connCtx)
	s.background(func() {
		s.askByMessage(promptCtx, a)
	})
	timer := time.NewTimer(s.opts.AskTimeout)
	defer timer.Stop()
	select {
	case <-a.decided:
	case <-timer.C:
		a.decide(false, "timeout")
	case <-ctx.Done():
		a.decide(false, "cancelled")
	case <-s.connCtx.Done():
		a.decide(false, "the editor disconnected")
	}
	withdraw()
	s.log.Info("ask decided", "id", a.ID, "tool", a.ToolName, "allow", a.allow, "by", a.by)
	s.audit.Load().RecordAnswer(audit.Answer{Session: a.SessionID, Event: string(event.PreToolUse), Tool: a.ToolName,
		Input: a.ToolInput, Answer: answerWord(a.allow), By: answeredBy(a.by), Reason: a.Reason, Duration: time.Since(a.created)})
	return a.allow
}

// askByMessage shows the ask as a message with Allow and Deny, each action
// carrying the ask's id (AskAction). When another
// channel answers first, the pending request is cancelled with
// $/cancelRequest so the editor can withdraw the prompt.
func (s *Server) askByMessage(ctx context.Context, a *pendingAsk) {
	msg := fmt.Sprintf("Hook asks: allow %s?", safetext.Line(a.ToolName, promptItemRunes))
	if a.Reason != "" {
		msg += " " + safetext.Line(a.Reason, promptReasonRune)
	}
	params := &AskPromptParams{Type: protocol.MessageTypeWarning, Message: msg,
		Actions: []AskAction{{Title: titleAllow, PermissionID: a.ID}, {Title: titleDeny, PermissionID: a.ID}}}
	var item *AskAction
	id, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, params, &item)
	switch {
	case ctx.Err() != nil:
		_ = s.conn.Notify(s.connCtx, "$/cancelRequest", map[string]any{"id": &id})
	case isRequestCancelled(err):
		// The editor's way of saying it answers through wave/resolvePermission
		// (the Neovim plugin does, to show its own picker).
		s.log.Debug("the editor answers the ask another way", "id", a.ID, "err", err)
	case err != nil:
		s.log.Warn("ask prompt failed; waiting for another answer", "err", err)
	case item == nil:
		a.decide(false, "prompt dismissed")
	default:
		a.decide(item.Title == titleAllow, "prompt")
	}
}

// isRequestCancelled reports whether err is the editor's RequestCancelled
// answer to a request the server sent.
func isRequestCancelled(err error) bool {
	var rpcErr *jsonrpc2.Error
	return errors.As(err, &rpcErr) && rpcErr.Code == rpcerr.RequestCancelled
}

// answerWord is an ask's answer as the audit log words it.
func answerWord(allow bool) string {
	if allow {
		return audit.Allow
	}
	return audit.Deny
}

// answeredBy says who answered an ask, for the audit log: the user in the
// editor (and through which channel), or what answered for them.
func answeredBy(by string) string {
	switch by {
	case "prompt", "prompt dismissed", "code action", "wave/resolvePermission":
		return "user in the editor: " + by
	case "timeout":
		return "timeout: no answer in time"
	}
	return by // cancelled, the editor disconnected: nobody answered
}
