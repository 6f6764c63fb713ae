// Package fakemodel is a scripted language model on loopback: the Anthropic
// Messages API (Claude Code, claude-agent-acp) and the OpenAI Responses API
// (codex-acp). It is the one mock of a model wavehooks has: the conformance
// suite, the ACP proxy's agent tests and `wavehooks doctor`'s offline probes
// all run a real agent against it, so nothing leaves the machine.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Block is one content block of a scripted model answer: text, or a tool
// call (ToolName set) that makes the agent run a tool.
type Block struct {
	Text      string
	ToolName  string
	ToolID    string
	ToolInput map[string]any
	// Status, when not zero, makes the whole answer an API error with this
	// HTTP status, ErrorType as its error.type and Text as its message.
	Status    int
	ErrorType string
}

// Say is a text block.
func Say(text string) Block { return Block{Text: text} }

// Fail is an answer that is an API error (429 rate_limit_error, 529
// overloaded_error, …) instead of a message.
func Fail(status int, errorType, message string) Block {
	return Block{Status: status, ErrorType: errorType, Text: message}
}

// Call is a tool call with the given id.
func Call(id, tool string, input map[string]any) Block {
	return Block{ToolName: tool, ToolID: id, ToolInput: input}
}

// APIRequest is one request the CLI made to the fake API, kept whole so a
// test can read what reached the model.
type APIRequest struct {
	Method string
	Path   string
	Body   []byte
}

// FakeAPI is a scripted Anthropic Messages API on loopback: the model of a
// scenario. Its answer to a conversation request depends only on how many
// assistant messages the request already holds (turn N gets Turns[N]), so a
// retried request gets the same answer. Requests without tools (the CLI's
// side calls, such as titles) get a short text. Every request is logged.
type FakeAPI struct {
	Turns [][]Block
	Model string

	mu       sync.Mutex
	requests []APIRequest
	server   *http.Server
	tcp      net.Listener
	unix     net.Listener
	done     chan struct{}
}

// StartFakeAPI serves the script on 127.0.0.1 (a free port) and, when
// unixPath is not empty, on that Unix socket too (the way in from another
// network namespace, see netns.go).
func StartFakeAPI(turns [][]Block, unixPath string) (*FakeAPI, error) {
	f := &FakeAPI{Turns: turns, Model: "claude-sonnet-4-5", done: make(chan struct{})}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f.tcp = tcp
	f.server = &http.Server{Handler: f, ReadHeaderTimeout: 30 * time.Second}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = f.server.Serve(tcp) }()
	if unixPath != "" {
		u, err := net.Listen("unix", unixPath)
		if err != nil {
			_ = f.server.Close()
			return nil, err
		}
		f.unix = u
		wg.Add(1)
		go func() { defer wg.Done(); _ = f.server.Serve(u) }()
	}
	go func() { wg.Wait(); close(f.done) }()
	return f, nil
}

// Addr is the host:port of the loopback listener.
func (f *FakeAPI) Addr() string { return f.tcp.Addr().String() }

// Close stops the server and waits for its goroutines.
func (f *FakeAPI) Close() {
	_ = f.server.Close()
	<-f.done
}

// Requests returns a copy of the log.
func (f *FakeAPI) Requests() []APIRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]APIRequest(nil), f.requests...)
}

// ServeHTTP answers every request the CLI makes.
func (f *FakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	f.mu.Lock()
	f.requests = append(f.requests, APIRequest{Method: r.Method, Path: r.URL.RequestURI(), Body: body})
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodConnect:
		// A proxy that refuses to tunnel: nothing leaves the machine.
		http.Error(w, "this proxy does not tunnel", http.StatusForbidden)
	case r.URL.IsAbs():
		// A plain-HTTP proxy request for another host: refused.
		http.Error(w, "this proxy forwards nothing", http.StatusForbidden)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		f.messages(w, body)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": 100})
	default:
		writeJSON(w, map[string]any{})
	}
}

// messagesRequest is the part of a Messages API request the script reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

func (f *FakeAPI) messages(w http.ResponseWriter, body []byte) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad JSON"}}`)
		return
	}
	model := req.Model
	if model == "" {
		model = f.Model
	}
	var blocks []Block
	if len(req.Tools) == 0 {
		blocks = []Block{Say("ok")} // a side request (title, summary): not part of the script
	} else {
		turn := 0
		for _, m := range req.Messages {
			var role struct {
				Role string `json:"role"`
			}
			if json.Unmarshal(m, &role) == nil && role.Role == "assistant" {
				turn++
			}
		}
		if turn < len(f.Turns) {
			blocks = f.Turns[turn]
		} else {
			blocks = []Block{Say("Done.")}
		}
	}
	for _, b := range blocks {
		if b.Status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("x-should-retry", "false")
			w.WriteHeader(b.Status)
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
				"error": map[string]any{"type": b.ErrorType, "message": b.Text}})
			return
		}
	}
	stop := "end_turn"
	content := make([]map[string]any, 0, len(blocks))
	for i, b := range blocks {
		if b.ToolName != "" {
			stop = "tool_use"
			id := b.ToolID
			if id == "" {
				id = fmt.Sprintf("toolu_%02d", i)
			}
			input := b.ToolInput
			if input == nil {
				input = map[string]any{}
			}
			content = append(content, map[string]any{"type": "tool_use", "id": id, "name": b.ToolName, "input": input})
		} else {
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		}
	}
	msgID := fmt.Sprintf("msg_%d", time.Now().UnixNano())
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, c := range content {
		if c["type"] == "tool_use" {
			input, _ := json.Marshal(c["input"])
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		} else {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
