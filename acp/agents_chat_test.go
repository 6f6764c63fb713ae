//go:build linux

package acp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// chatModel adds the OpenAI Chat Completions API (POST …/chat/completions)
// to the fake model of agents_fake_test.go, for the agents that speak only
// that (opencode through @ai-sdk/openai-compatible, Qwen Code through the
// openai SDK). It is a server of its own in front of the fakeModel: chat
// requests are answered here and logged in the fakeModel's request log (so
// fakeModel.saw sees them), everything else goes to the fakeModel. A
// request for another host (the agent asking it as HTTP(S)_PROXY) is
// refused and kept in left, so a test can say nothing tried to leave.
type chatModel struct {
	*fakeModel
	srv *httptest.Server

	mu   sync.Mutex
	left []string
	// logf, when set (WAVEHOOKS_AGENT_DEBUG), logs each chat request.
	logf func(format string, args ...any)
}

func startChatModel(t *testing.T) *chatModel {
	c := &chatModel{fakeModel: startFakeModel(t)}
	if os.Getenv("WAVEHOOKS_AGENT_DEBUG") != "" {
		c.logf = t.Logf
	}
	c.srv = httptest.NewServer(c)
	t.Cleanup(c.srv.Close)
	return c
}

// URL is the fake's base URL, http://127.0.0.1:PORT (the chat API is under /v1).
func (c *chatModel) URL() string { return c.srv.URL }

// tried returns the hosts the agent tried to reach through the fake as a
// proxy (HTTPS_PROXY points here): each was refused.
func (c *chatModel) tried() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.left...)
}

func (c *chatModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect || r.URL.IsAbs() {
		c.mu.Lock()
		c.left = append(c.left, r.Method+" "+r.Host)
		c.mu.Unlock()
		http.Error(w, "this proxy forwards nothing", http.StatusForbidden)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		c.fakeModel.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	key := promptMarker(body)
	f := c.fakeModel
	f.mu.Lock()
	f.requests = append(f.requests, modelRequest{Path: r.URL.Path, Body: body})
	steps := f.scripts[key]
	f.mu.Unlock()
	if c.logf != nil {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
			Tools    []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		first, last := "", ""
		if n := len(req.Messages); n > 0 {
			first, last = string(req.Messages[0]), string(req.Messages[n-1])
		}
		c.logf("chat request for %q: %d messages, %d tools; first %.120s; last %.300s", key, len(req.Messages), len(req.Tools), first, last)
	}
	chatCompletion(w, body, steps)
}

// promptedCase matches a case's marker where a case's prompt carries it
// ("CASE-…: make the file").
var promptedCase = regexp.MustCompile(`(CASE-[A-Za-z0-9]+): `)

// promptMarker finds the case a request belongs to by its prompt. Gemini
// CLI's forks (Qwen Code) put the project's file tree in the conversation
// before the first prompt, and earlier cases leave files named after
// their markers there (build-CASE-…), so caseMarker's first match would
// name an earlier case.
func promptMarker(body []byte) string {
	if m := promptedCase.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return caseMarker.FindString(string(body))
}

// chatCompletion answers a Chat Completions request, streamed (server-sent
// "chat.completion.chunk" events, then [DONE]) when it asks for a stream.
// Answer N of a conversation is steps[N], N being how many assistant
// messages it holds. A request without tools (a title, a summary) is not
// part of the script: it gets a short text.
func chatCompletion(w http.ResponseWriter, body []byte, steps []step) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	s := say("Done.")
	switch {
	case len(req.Tools) == 0:
		s = say("A title")
	case len(req.Tools) == 1 && len(req.Messages) > 0 && strings.Contains(string(req.Messages[0].Content), "You are a security classifier"):
		// Qwen Code's auto mode asks the model whether a tool call is
		// safe (its one tool, respond_in_schema). Answered allow: what
		// the classifier allows runs without a permission request (what
		// it blocks, Qwen Code refuses itself; either way no hook sees
		// it). Any other answer makes the classifier "unavailable", and
		// Qwen Code falls back to asking the user, which a working
		// classifier would not do.
		s = use(req.Tools[0].Function.Name, map[string]any{"shouldBlock": false})
	default:
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		if n < len(steps) {
			s = steps[n]
		}
	}
	id := fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano())
	message := map[string]any{"role": "assistant", "content": s.Text}
	finish := "stop"
	if s.Tool != "" {
		args, _ := json.Marshal(s.Args)
		message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": "call_" + id, "type": "function", "function": map[string]any{"name": s.Tool, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	created := time.Now().Unix()
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(choices []any, extra map[string]any) {
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": choices}
		for k, v := range extra {
			chunk[k] = v
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send([]any{map[string]any{"index": 0, "delta": message, "finish_reason": nil}}, nil)
	send([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil)
	send([]any{}, map[string]any{"usage": usage})
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
