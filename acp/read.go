package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// work handles the editor's messages in order. Output is flushed whenever
// no message is waiting.
func (p *Proxy) work(in <-chan *message) {
	for m := range in {
		if m != flushRest {
			p.safely(m, p.fromEditor, true)
		}
		if len(in) == 0 || m == flushRest {
			p.flush()
		}
		p.editorQueued.Add(-1)
	}
	p.flush()
}

// flushRest, queued for work, has it send what the reader could not send
// without waiting (handleEditor).
var flushRest = &message{}

// promptMayWait reports whether a prompt's UserPromptSubmit hooks may run,
// with its workspace's settings read again if they changed: whether its
// session is not known yet (opening it may ask for trust) or such a hook is
// configured. The prompt is marked settingsRead either way, so that prompt
// does not read them a second time.
func (p *Proxy) promptMayWait(m *message) bool {
	var params struct {
		SessionID string `json:"sessionId"`
	}
	if decodeTransient(m.Params, &params) != nil || params.SessionID == "" {
		return true
	}
	st := p.sessionState(params.SessionID)
	if st == nil {
		return true
	}
	st.ws.reload()
	m.settingsRead = true
	return st.ws.Engine.MayRun(event.Input{Event: event.UserPromptSubmit})
}

// queue hands one of the editor's messages (or flushRest) to work.
func (p *Proxy) queue(up chan<- *message, m *message) {
	p.editorQueued.Add(1)
	up <- m
}

// inlineMax bounds what the editor's reader handles itself: a larger
// message, or one behind that much output not taken yet, goes to work.
const inlineMax = 1 << 20

// handleEditor handles one of the editor's messages on the reader's own
// goroutine when work has nothing queued or in hand and the message cannot
// wait: not a prompt whose UserPromptSubmit hooks may run, not a large message,
// and not while a side has not taken what it was sent. The order is kept,
// since only the reader queues, and the message does not pay for waking
// another goroutine (30–45 µs, BenchmarkForwarding's ping). The reader
// never waits on a peer: what a pipe does not take at once (tryFlush) is
// left to work, which may wait, so the reader still sees a session/cancel
// and the editor's end at once. Nor does it read a file: a request that
// opens a session goes to work, since the hook bridge reads the Claude
// Code settings file it may name (withBridge; issue #35 item 4).
func (p *Proxy) handleEditor(up chan<- *message, m *message, lr *lineReader) {
	if p.editorQueued.Load() > 0 || (m.isRequest() && p.offReader(m)) ||
		len(m.line) > inlineMax ||
		p.editorOut.pending() > inlineMax || p.agentIn.pending() > inlineMax {
		p.queue(up, m)
		return
	}
	p.safely(m, p.fromEditor, true)
	if lr.buffered() > 0 {
		return // the next message is read already: its handling sends both
	}
	sentEditor, sentAgent := p.editorOut.tryFlush(), p.agentIn.tryFlush()
	if !sentEditor || !sentAgent {
		p.queue(up, flushRest)
	}
}

// offReader says whether an editor's request must be handled by work, not
// on the reader: its method's row says (methods' offReader) — a prompt
// whose UserPromptSubmit hooks may run, or a request that opens a session,
// which the hook bridge may edit, reading a settings file (withBridge).
func (p *Proxy) offReader(m *message) bool {
	row := methodOf(m.Method)
	return row != nil && row.offReader != nil && row.offReader(p, m)
}

// flushEditorIfIdle sends the editor what is queued for it when none of the
// agent's output waits to be handled: called by the agent's reader before
// work on a message it already passed on (a tool call recorded in the
// transcript, its Post hooks), so that the editor does not wait for that
// work to see the message. With more of the agent's output already read,
// the flush waits for it, as in readAgent, so a burst still goes out in a
// few writes.
func (p *Proxy) flushEditorIfIdle() {
	if p.agentLines != nil && p.agentLines.buffered() == 0 {
		p.editorOut.flush()
	}
}

// flush sends what is queued for either side.
func (p *Proxy) flush() {
	p.editorOut.flush()
	p.agentIn.flush()
}

// safely handles one message. A panic in the proxy's own code is logged and,
// if the message was not dealt with yet, it is passed on unchanged (a request
// is answered with an internal error instead, so that its sender does not
// wait forever): one bad message never ends a session.
func (p *Proxy) safely(m *message, handle func(*message), fromEditor bool) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		p.log.Error("internal error handling a message", "method", m.Method, "passedOn", m.passed, "panic", r)
		if m.passed {
			return
		}
		switch {
		case m.isRequest():
			line := errorLine(m.ID, rpcerr.InternalError, fmt.Sprintf("wavehooks: internal error handling %s: %v", m.Method, r), nil)
			if fromEditor {
				p.sendEditor(line)
			} else {
				p.sendAgent(line)
			}
		case fromEditor:
			p.sendAgent(m.line)
		default:
			p.sendEditor(m.line)
		}
	}()
	handle(m)
}

// readEditor reads the editor's messages into up. A line that is not JSON
// is answered with a parse error and not passed to the agent; a
// session/cancel also stops that session's hooks at once, before the
// messages ahead of it are handled.
func (p *Proxy) readEditor(r io.Reader, up chan<- *message) {
	defer close(up)
	lr := newLineReader(r, p.opts.MaxLine)
	for {
		line, err := lr.next()
		if err != nil {
			var tooLong *errLineTooLong
			if errors.As(err, &tooLong) {
				p.log.Warn("the editor sent a message too large to pass on", "err", err)
				p.sendEditor(errorLine(nil, rpcerr.InvalidRequest, "wavehooks: "+err.Error(), nil))
				p.editorOut.flush()
				continue
			}
			if !errors.Is(err, io.EOF) {
				p.log.Debug("reading from the editor", "err", err)
			}
			return
		}
		if tooDeep(line) {
			p.deepFromEditor(line, up)
			continue
		}
		m, err := parseMessage(line)
		if err != nil {
			p.log.Warn("the editor sent a line that is not a JSON-RPC message; it was not passed on",
				"err", err, "line", clipText(string(line), 200))
			p.sendEditor(errorLine(nil, rpcerr.ParseError, "wavehooks: parse error: "+err.Error(), nil))
			p.editorOut.flush()
			continue
		}
		if row := methodOf(m.Method); row != nil && row.editorNotificationRead != nil && m.isNotification() {
			row.editorNotificationRead(p, m)
		}
		p.handleEditor(up, m, lr)
	}
}

// readAgent reads and handles the agent's messages, in order. Lines that
// are not JSON (an agent printing a log line to stdout) go to stderr
// instead of to the editor, which would choke on them. Output is flushed
// whenever no more of the agent's input is read already.
func (p *Proxy) readAgent(r io.Reader) {
	defer p.flush()
	lr := newLineReader(r, p.opts.MaxLine)
	p.agentLines = lr
	for {
		if lr.buffered() == 0 {
			p.flush()
		}
		view, owned, err := lr.nextView()
		if err != nil {
			var tooLong *errLineTooLong
			if errors.As(err, &tooLong) {
				p.log.Warn("the agent sent a message too large to pass on", "err", err)
				continue
			}
			if !errors.Is(err, io.EOF) {
				p.log.Debug("reading from the agent", "err", err)
			}
			return
		}
		deep := tooDeep(view)
		if !deep && p.textChunk(view) {
			continue // streamed text keeps nothing of its line: it needs no copy
		}
		line := view
		if !owned {
			line = bytes.Clone(view) // a message may be kept past the next read
		}
		if deep {
			p.deepFromAgent(line)
			continue
		}
		m, err := parseMessage(line)
		if err != nil {
			p.log.Warn("the agent wrote a line that is not a JSON-RPC message; it went to stderr, not to the editor",
				"err", err, "line", clipText(string(line), 4096))
			continue
		}
		p.safely(m, p.fromAgent, false)
	}
}
