package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// Hook evaluation by the agent host (docs/hooks.md, "Hook types"): prompt,
// agent and mcp_tool hooks need a model or the agent's MCP servers, which
// the editor's agent extension has and the server does not. The server asks
// the editor with wave/evaluateHook, if the editor declared
// capabilities.experimental.waveEvaluateHook in initialize. The editor
// answers the request with the answer, or (when it answers later, as the
// Neovim plugin does) with a RequestCancelled error followed by
// wave/evaluateHookResult. An editor without an agent that evaluates hooks
// answers MethodNotFound: the hook counts as not run.

const (
	methodEvaluateHook       = "wave/evaluateHook"
	methodEvaluateHookResult = "wave/evaluateHookResult"
)

// EvaluateHookParams is what the editor's agent is asked to evaluate.
type EvaluateHookParams struct {
	// ID names this evaluation for wave/evaluateHookResult.
	ID string `json:"id"`
	// Type is "prompt", "agent" or "mcp_tool".
	Type      string `json:"type"`
	Event     string `json:"event"`
	SessionID string `json:"sessionId"`
	// Input is the event's JSON input, what a command hook reads on stdin.
	Input json.RawMessage `json:"input"`
	// TimeoutSeconds is the hook's timeout: the server gives up (and sends
	// $/cancelRequest) when it passes.
	TimeoutSeconds float64 `json:"timeoutSeconds"`
	// Prompt (with $ARGUMENTS replaced by Input) and Model: prompt and agent hooks.
	Prompt string `json:"prompt,omitempty"`
	Model  string `json:"model,omitempty"`
	// Server, Tool and Arguments: the MCP tool call of an mcp_tool hook.
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// EvaluateHookResultParams is a late answer to wave/evaluateHook: Result as
// the request's result would have been, or Error when the evaluation failed.
type EvaluateHookResultParams struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// EvaluateHookResultResult says whether the answer was still awaited.
type EvaluateHookResultResult struct {
	Resolved bool `json:"resolved"`
}

// evalAnswer is an answer to an evaluation, however it came.
type evalAnswer struct {
	result json.RawMessage
	err    error
}

// evaluations are the evaluations waiting for a late answer.
type evaluations struct {
	mu      sync.Mutex
	seq     int
	pending map[string]chan evalAnswer
}

func (e *evaluations) open() (string, chan evalAnswer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		e.pending = map[string]chan evalAnswer{}
	}
	e.seq++
	id := "eval-" + strconv.Itoa(e.seq)
	ch := make(chan evalAnswer, 1)
	e.pending[id] = ch
	return id, ch
}

func (e *evaluations) close(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending, id)
}

func (e *evaluations) resolve(id string, a evalAnswer) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	ch, ok := e.pending[id]
	if ok {
		delete(e.pending, id)
		ch <- a
	}
	return ok
}

// declaresEvaluateHook reads capabilities.experimental.waveEvaluateHook;
// anything but true (another shape included) declares nothing.
func declaresEvaluateHook(experimental json.RawMessage) bool {
	var caps struct {
		WaveEvaluateHook bool `json:"waveEvaluateHook"`
	}
	return json.Unmarshal(experimental, &caps) == nil && caps.WaveEvaluateHook
}

// hostDelegate evaluates hooks by asking the editor.
type hostDelegate struct {
	s        *Server
	declared bool
}

// EvaluateHook sends wave/evaluateHook and waits for the answer, until ctx
// (the hook's timeout, the event) or the connection ends.
func (d *hostDelegate) EvaluateHook(ctx context.Context, ev hooks.Evaluation) (json.RawMessage, error) {
	s := d.s
	if !d.declared {
		return nil, &hooks.NotSupportedError{Why: "the editor did not declare capabilities.experimental.waveEvaluateHook"}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.connCtx, cancel) // a pending call is only released by its context
	defer stop()
	id, late := s.evals.open()
	defer s.evals.close(id)
	params := &EvaluateHookParams{ID: id, Type: ev.Type, Event: string(ev.Event), SessionID: ev.SessionID, Input: ev.Input,
		TimeoutSeconds: ev.Timeout.Seconds(), Prompt: ev.Prompt, Model: ev.Model, Server: ev.Server, Tool: ev.Tool, Arguments: ev.Arguments}
	var result json.RawMessage
	callID, err := s.conn.Call(ctx, methodEvaluateHook, params, &result)
	var rpcErr *jsonrpc2.Error
	switch {
	case ctx.Err() != nil:
		_ = s.conn.Notify(s.connCtx, "$/cancelRequest", map[string]any{"id": &callID})
		return nil, ctx.Err()
	case errors.As(err, &rpcErr) && rpcErr.Code == rpcerr.MethodNotFound:
		return nil, &hooks.NotSupportedError{Why: "the editor has no agent that evaluates hooks (wave/evaluateHook: " + rpcErr.Message + ")"}
	case isRequestCancelled(err):
		// The editor answers later, through wave/evaluateHookResult.
		select {
		case a := <-late:
			return a.result, a.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case errors.As(err, &rpcErr):
		return nil, errors.New(rpcErr.Message)
	case err != nil:
		return nil, err
	}
	return answerOrError(result)
}

func answerOrError(result json.RawMessage) (json.RawMessage, error) {
	if len(result) == 0 || string(result) == "null" {
		return nil, fmt.Errorf("the editor answered %s with no result", methodEvaluateHook)
	}
	return result, nil
}

// evaluateHookResult takes a late answer to wave/evaluateHook.
func (s *Server) evaluateHookResult(_ context.Context, p *EvaluateHookResultParams) (*EvaluateHookResultResult, error) {
	if p.ID == "" {
		return nil, badParam("id", "is required")
	}
	a := evalAnswer{}
	if p.Error != "" {
		a.err = errors.New(p.Error)
	} else {
		a.result, a.err = answerOrError(p.Result)
	}
	return &EvaluateHookResultResult{Resolved: s.evals.resolve(p.ID, a)}, nil
}

// asyncRun hears how an async hook ended, after the host recorded its run:
// the editor is told, and an asyncRewake hook that exited 2 wakes the
// agent: what it said is added to its session for the model at once, and
// the editor is told that the session changed.
func (s *Server) asyncRun(in event.Input, res hooks.Result, run hooks.EventRun) {
	s.notify(notifyHookRun, run)
	if res.Rewake == "" || in.SessionID == "" || len(res.Runs) == 0 {
		return
	}
	sess, err := s.session(in.SessionID)
	if err != nil {
		s.log.Warn("an asyncRewake hook's session is gone", "session", in.SessionID, "err", err)
		return
	}
	if _, err := sess.Wake(in.Event, res.Runs[0].Command, res.Rewake); err != nil {
		s.log.Warn("cannot add an asyncRewake hook's feedback to its session", "session", in.SessionID, "err", err)
		return
	}
	s.announce(sess)
}
