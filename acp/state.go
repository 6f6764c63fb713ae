package acp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/session"
)

// sessState is what the proxy keeps for one of the agent's sessions.
type sessState struct {
	acpID string // the agent's session id
	ws    *workspace
	// sess is the session the hooks run on: its file in the store, or one
	// in memory (session.ScratchWithID) when the file cannot be created or
	// written; inMemory is then set. It is swapped at most once.
	sess     atomic.Pointer[session.Session]
	inMemory atomic.Bool
	// unseenTold: the editor was told that a tool ran where no hook could
	// see it (tellUnseen); it is told once per session.
	unseenTold atomic.Bool

	mu sync.Mutex // guards everything below
	// hookCtx is what the session's hooks run under; session/cancel ends it
	// (killing them) and starts a fresh one.
	hookCtx     context.Context
	cancelHooks context.CancelFunc
	// pending is context for the model that goes with the next prompt
	// (SessionStart's, PostToolUse's), each text marked "[Hook:<Event>]".
	pending []string
	// text is the agent's message being streamed, gathered for the
	// transcript; textMsgID is its messageId, when the agent gives one.
	// The buffer is kept from one message to the next (takeText): a
	// message is streamed in hundreds of chunks, and a builder started
	// afresh for each grew a dozen times.
	text      []byte
	textMsgID string
	// tools are the tool calls not finished yet, by id; open is the same
	// in the order they appeared; finished remembers ids already done.
	tools    map[string]*toolState
	open     []*toolState
	finished map[string]bool
	// flushDue: a transcript write is scheduled (Proxy.flushTranscript).
	flushDue bool
	// turn is the prompt turn in flight, nil between turns.
	turn  *turn
	ended bool
}

// turn is one session/prompt of the editor's, from the request to the answer,
// through any follow-up prompts a Stop hook asks for.
type turn struct {
	st       *sessState
	editorID json.RawMessage
	// followUps counts the prompts the proxy sent for Stop hooks.
	followUps int
	// cancelled: the editor sent session/cancel; stopped: a hook's
	// continue:false made the proxy cancel the agent's turn.
	cancelled bool
	stopped   bool
}

func newSessState(ctx context.Context, acpID string, ws *workspace, sess *session.Session, inMemory bool) *sessState {
	st := &sessState{acpID: acpID, ws: ws, tools: map[string]*toolState{}, finished: map[string]bool{}}
	st.sess.Store(sess)
	st.inMemory.Store(inMemory)
	st.hookCtx, st.cancelHooks = context.WithCancel(ctx)
	return st
}

// session is the session the hooks run on now.
func (st *sessState) session() *session.Session { return st.sess.Load() }

// toMemory moves the session into memory after its file could not be
// written: every event from now on runs its hooks on a session of its own
// in memory, under the same session id, with no transcript_path. It
// reports whether this call moved it (false when it was in memory already).
func (st *sessState) toMemory() bool {
	if !st.inMemory.CompareAndSwap(false, true) {
		return false
	}
	st.sess.Store(session.ScratchWithID(st.session().ID(), st.ws.Root, st.ws.Engine))
	return true
}

// ctx is the context the session's hooks run under now.
func (st *sessState) ctx() context.Context {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.hookCtx
}

// cancel kills the session's running hooks and marks its turn cancelled.
func (st *sessState) cancel(parent context.Context) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cancelHooks()
	st.hookCtx, st.cancelHooks = context.WithCancel(parent)
	if st.turn != nil {
		st.turn.cancelled = true
	}
}

// tool returns the state of a tool call, creating it the first time.
func (st *sessState) tool(id string) *toolState {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t := st.tools[id]; t != nil {
		return t
	}
	if st.finished[id] {
		// A late update of a finished call (some agents send one more
		// diff): seen, passed on, not tracked again.
		return &toolState{id: id, finished: true}
	}
	t := &toolState{id: id}
	st.tools[id] = t
	st.open = append(st.open, t)
	return t
}

// finish marks a tool call done and forgets its state, reporting whether it
// was not done before.
func (st *sessState) finish(t *toolState) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.finished {
		return false
	}
	t.finished = true
	st.finished[t.id] = true
	delete(st.tools, t.id)
	for i, o := range st.open {
		if o == t {
			st.open = append(st.open[:i], st.open[i+1:]...)
			break
		}
	}
	return true
}

// markChecked notes that PreToolUse hooks decided on the latest open tool
// call of one of the kinds, at a file or terminal request that carries no
// tool call id: that tool did not run unchecked.
func (st *sessState) markChecked(where string, kinds ...string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.open) - 1; i >= 0; i-- {
		t := st.open[i]
		for _, k := range kinds {
			if t.kind == k && t.checked == "" {
				t.checked = where
				return
			}
		}
	}
}

// addText gathers a chunk of the agent's message; it returns the text of the
// previous message when this chunk starts a new one (its messageId changed).
func (st *sessState) addText(msgID, text string) (previous string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if msgID != st.textMsgID {
		previous = st.takeTextLocked()
		st.textMsgID = strings.Clone(msgID) // msgID may point into the message's line
	}
	st.text = append(st.text, text...)
	return previous
}

// takeText returns the agent's message gathered so far and starts afresh.
func (st *sessState) takeText() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.takeTextLocked()
}

// keepText is the largest text buffer kept for the next message; a larger
// one (a long answer) is dropped once taken.
const keepText = 64 << 10

// takeTextLocked is takeText; the caller holds st.mu.
func (st *sessState) takeTextLocked() string {
	s := string(st.text)
	if cap(st.text) > keepText {
		st.text = nil
	} else {
		st.text = st.text[:0]
	}
	return s
}

// addPending keeps context for the next prompt.
func (st *sessState) addPending(texts ...string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pending = append(st.pending, texts...)
}

func (st *sessState) takePending() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	p := st.pending
	st.pending = nil
	return p
}

func (st *sessState) setTurn(t *turn) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.turn = t
}

// turnState reports whether the turn was cancelled or stopped by a hook.
func (t *turn) state() (cancelled, stopped bool) {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	return t.cancelled, t.stopped
}

// sessionID is the wavehooks session id of an agent's session id: the same
// id when it is one a session file may be named after, else a stable id
// derived from it ("acp-" and a hash), since nothing an agent sends becomes
// a path unchecked.
func sessionID(acpID string) string {
	if session.ValidateID(acpID) == nil {
		return acpID
	}
	sum := sha256.Sum256([]byte(acpID))
	return "acp-" + hex.EncodeToString(sum[:16])
}
