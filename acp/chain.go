package acp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// A proxy in a chain (the proxy-chains RFD of ACP, docs/rfds/proxy-chains):
// `wavehooks acp --component` is started by a conductor as one of its proxy
// components, with no agent of its own. Its stdio is the conductor: the
// conductor initializes it with proxy/initialize (the initialize params
// under another name) and hands it the editor's messages as they are; what
// the proxy would send to the agent it sends to the conductor wrapped in a
// proxy/successor request or notification, {"method": M, "params": P}, and
// the conductor answers such a request with the successor's answer as is.
// The successor's own messages (the agent's, or the next proxy's) come the
// other way, wrapped the same way, and the proxy answers the conductor's
// wrapping request with its plain answer.
//
// The chain sits under the proxy as it is (runProxy): it plays the editor's
// stdio and the agent's process (a successor agentProcess with pipes and no
// command). Messages from the conductor go to the editor side unless they
// are proxy/successor, which are unwrapped onto the agent side; the agent
// side's output is wrapped. So every hook, decision and pass-through works
// through a chain exactly as with an agent of the proxy's own.
//
// sacp-conductor, the RFD's reference conductor, names the two methods
// _proxy/initialize and _proxy/successor (they are not in ACP's schema yet):
// the proxy answers to both, and wraps in the name of the initialize it got.
const (
	methodProxyInitialize = "proxy/initialize"
	methodProxySuccessor  = "proxy/successor"
	// extPrefix is the prefix of the extension names sacp-conductor uses.
	extPrefix = "_"
)

// chainIDPrefix starts the ids of the requests the proxy wraps for its
// successor: they are the proxy's own on the conductor's connection, where
// the requests it forwards to its predecessor travel too (with the
// conductor's ids), so the answers of the two must not be confused.
const chainIDPrefix = ownIDPrefix + "successor-"

// chain is the conductor's connection of a proxy component.
type chain struct {
	opts Options
	// out is the conductor's side of the proxy's stdout: the proxy's
	// editor writer and the wrapped messages to the successor share it,
	// a whole line per write.
	out *syncWriter

	editor *lineQueue // to the proxy's editor reader
	agent  *lineQueue // to the proxy's agent reader (the successor's output)

	mu sync.Mutex
	// successor is the name of the wrapping method: proxy/successor, or
	// sacp-conductor's _proxy/successor once it sent _proxy/initialize.
	successor string
	// initialized: proxy/initialize came.
	initialized bool
	// calls are the proxy's requests to the successor, by the id they were
	// wrapped with, to their own id.
	calls map[string]json.RawMessage
	seq   int
}

// syncWriter writes whole lines to one writer from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// runComponent is runProxy for a proxy component under a conductor
// (Options.Component): conductorIn and conductorOut are its stdio.
func runComponent(ctx context.Context, opts Options, conductorIn io.Reader, conductorOut io.Writer, started chan<- *Proxy) int {
	c := &chain{opts: opts, out: &syncWriter{w: conductorOut}, editor: newLineQueue(), agent: newLineQueue(),
		successor: methodProxySuccessor, calls: map[string]json.RawMessage{}}
	succ, err := c.successorProcess()
	if err != nil {
		if opts.Logger != nil {
			opts.Logger.Error(err.Error())
		}
		closeReader(conductorIn)
		return 1
	}
	editorR, editorW := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.editor.drainTo(editorW) }()
	go func() { defer wg.Done(); c.readConductor(conductorIn) }()
	opts.successor = succ
	code := runProxy(ctx, opts, editorR, c.out, started)
	closeReader(conductorIn)
	c.editor.close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		// A read of an inherited stdin cannot be interrupted by Close.
	}
	return code
}

// successorProcess is the agent the proxy talks to: pipes whose far ends
// are the chain's. What the proxy writes to its stdin is wrapped for the
// conductor (wrapOut); its stdout is the successor's messages, unwrapped
// (c.agent). It "exits" when the proxy closes its stdin (agentProcess.stop).
func (c *chain) successorProcess() (*agentProcess, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_, _ = inR.Close(), inW.Close()
		return nil, err
	}
	a := &agentProcess{stdin: inW, stdout: outR, exited: make(chan struct{})}
	go c.agent.drainTo(outW)
	go func() {
		c.wrapOut(inR)
		_ = inR.Close()
		c.agent.close() // the successor's output ends: outW closes once drained
		close(a.exited)
	}()
	return a, nil
}

// readConductor reads the conductor's messages: proxy/successor ones are
// the successor's, unwrapped for the agent side, as are the conductor's
// answers to the proxy's wrapped requests; the others are the editor's.
func (c *chain) readConductor(r io.Reader) {
	defer c.editor.close()
	lr := newLineReader(r, c.opts.MaxLine)
	for {
		line, err := lr.next()
		if err != nil {
			var tooLong *errLineTooLong
			if errors.As(err, &tooLong) {
				_, _ = c.out.Write(errorLine(nil, rpcerr.InvalidRequest, "wavehooks: "+err.Error(), nil))
				continue
			}
			return
		}
		if tooDeep(line) {
			c.editor.push(line) // the editor's reader refuses it
			continue
		}
		m, err := parseMessage(line)
		if err != nil {
			c.editor.push(line)
			continue
		}
		switch {
		case m.Method == methodProxySuccessor || m.Method == extPrefix+methodProxySuccessor:
			if line, ok := unwrapSuccessor(m); ok {
				c.agent.push(line)
			} else if m.ID != nil {
				_, _ = c.out.Write(errorLine(m.ID, rpcerr.InvalidParams, "wavehooks: "+m.Method+" without a message to unwrap", nil))
			}
		case m.Method == methodProxyInitialize || m.Method == extPrefix+methodProxyInitialize:
			c.mu.Lock()
			c.initialized = true
			c.successor = m.Method[:len(m.Method)-len(methodProxyInitialize)] + methodProxySuccessor
			c.mu.Unlock()
			// The proxy acts on it as on initialize, which it passes on to
			// its successor: the conductor sends that on as initialize or
			// proxy/initialize, as the RFD says.
			c.editor.push(rawRequestLine(m.ID, methodInitialize, m.Params))
		case m.Method == methodInitialize && m.isRequest():
			// Only the last component, the agent, gets initialize: this one
			// has no agent behind it.
			_, _ = c.out.Write(errorLine(m.ID, rpcerr.InvalidRequest,
				"wavehooks: `wavehooks acp --component` is a proxy in a chain and expects proxy/initialize; "+
					"as the chain's agent, start it as `wavehooks acp -- <agent command>`", nil))
		case m.isResponse() && c.answersOwn(m):
		default:
			c.editor.push(line)
		}
	}
}

// answersOwn hands the conductor's answer to a wrapped request to the
// agent side, under the request's own id, and reports whether m was one.
func (c *chain) answersOwn(m *message) bool {
	c.mu.Lock()
	id, ok := c.calls[idKey(m.ID)]
	delete(c.calls, idKey(m.ID))
	c.mu.Unlock()
	if !ok {
		return false
	}
	version := rawMember{`"jsonrpc"`, []byte(`"2.0"`)}
	if m.Error != nil {
		c.agent.push(rawLine(version, rawMember{`"id"`, id}, rawMember{`"error"`, m.Error}))
	} else {
		result := m.Result
		if result == nil {
			result = json.RawMessage("null")
		}
		c.agent.push(rawLine(version, rawMember{`"id"`, id}, rawMember{`"result"`, result}))
	}
	return true
}

// wrapOut sends what the proxy writes to its successor to the conductor:
// requests and notifications wrapped in proxy/successor, the request under
// an id of the chain's; answers (to the successor's requests, which came
// under the conductor's ids) as they are.
func (c *chain) wrapOut(r io.Reader) {
	lr := newLineReader(r, 0)
	for {
		line, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				return
			}
			var tooLong *errLineTooLong
			if errors.As(err, &tooLong) {
				continue
			}
			return
		}
		m, err := parseMessage(line)
		if err != nil {
			continue // the proxy sends only messages
		}
		if m.Method == "" {
			_, _ = c.out.Write(line)
			continue
		}
		c.mu.Lock()
		name := c.successor
		var id json.RawMessage
		if m.ID != nil {
			c.seq++
			id = json.RawMessage(strconv.Quote(chainIDPrefix + strconv.Itoa(c.seq)))
			c.calls[idKey(id)] = m.ID
		}
		c.mu.Unlock()
		// proxy/successor's params are the wrapped message's method and
		// params, which keep their bytes.
		inner := rawLine(rawMember{`"method"`, mustRaw(m.Method)}, rawMember{`"params"`, m.Params})
		_, _ = c.out.Write(rawRequestLine(id, name, inner[:len(inner)-1]))
	}
}

// unwrapSuccessor is the message a proxy/successor from the conductor
// carries, under the wrapping request's id: the successor's request
// answered by answering that one. Its params keep their bytes. false: the
// params hold no message.
func unwrapSuccessor(m *message) ([]byte, bool) {
	var inner struct {
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := decode(m.Params, &inner); err != nil || len(inner.Method) == 0 || inner.Method[0] != '"' {
		return nil, false
	}
	return rawLine(rawMember{`"jsonrpc"`, []byte(`"2.0"`)}, rawMember{`"id"`, m.ID},
		rawMember{`"method"`, inner.Method}, rawMember{`"params"`, inner.Params}), true
}

// lineQueue hands lines from the conductor's reader to one side without
// making it wait for the other: a side held by a hook does not hold the
// conductor's messages for the other side, as with two pipes of their own.
type lineQueue struct {
	mu     sync.Mutex
	ready  sync.Cond
	lines  [][]byte
	closed bool
}

func newLineQueue() *lineQueue {
	q := &lineQueue{}
	q.ready.L = &q.mu
	return q
}

// push queues a line; nil and lines after close are dropped.
func (q *lineQueue) push(line []byte) {
	if line == nil {
		return
	}
	q.mu.Lock()
	if !q.closed {
		q.lines = append(q.lines, line)
		q.ready.Signal()
	}
	q.mu.Unlock()
}

// close ends the queue once what is queued is taken.
func (q *lineQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.ready.Signal()
	q.mu.Unlock()
}

// drainTo writes the queued lines to w until the queue is closed and
// empty, then closes w. After a failed write the rest is dropped.
func (q *lineQueue) drainTo(w io.WriteCloser) {
	defer w.Close()
	var broken error
	for {
		q.mu.Lock()
		for len(q.lines) == 0 && !q.closed {
			q.ready.Wait()
		}
		if len(q.lines) == 0 {
			q.mu.Unlock()
			return
		}
		lines := q.lines
		q.lines = nil
		q.mu.Unlock()
		for _, l := range lines {
			if broken == nil {
				_, broken = w.Write(l)
			}
		}
	}
}
