//go:build linux

package acp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/wavehooks/wavehooks/conformance"
	"github.com/wavehooks/wavehooks/internal/fakemodel"
)

// The real agents' tests (agents_*_test.go) run each agent offline against
// a fake model on loopback. One fake serves every case of a test, so one
// agent process serves them all: each case opens its own ACP session and
// its prompt carries a marker, caseMarker, which the fake finds in the
// conversation and answers with that case's script. Requests without a
// marker (titles, summaries, warm-ups) get a short text.

// caseMarker finds the case a model request belongs to.
var caseMarker = regexp.MustCompile(`CASE-[A-Za-z0-9]+`)

// step is one scripted model answer: text, or one tool call.
type step struct {
	Text string
	Tool string         // the agent's tool name; "" for text
	Args map[string]any // the tool's input
}

func say(text string) step                      { return step{Text: text} }
func use(tool string, args map[string]any) step { return step{Tool: tool, Args: args} }
func cmd(command string) map[string]any         { return map[string]any{"command": command} }
func fileArgs(path, content string) map[string]any {
	return map[string]any{"file_path": path, "content": content}
}

// modelRequest is one request an agent made to the fake model.
type modelRequest struct {
	Path string
	Body []byte
}

// fakeModel is a scripted model API on 127.0.0.1: the Anthropic Messages API
// (answered by the conformance suite's conformance.FakeAPI, one per case)
// and the OpenAI Responses API (answered here). Every request is logged,
// so a test can say what reached the model and what never did.
type fakeModel struct {
	srv *httptest.Server

	mu        sync.Mutex
	scripts   map[string][]step
	anthropic map[string]*conformance.FakeAPI
	requests  []modelRequest
}

func startFakeModel(t *testing.T) *fakeModel {
	f := &fakeModel{scripts: map[string][]step{}, anthropic: map[string]*conformance.FakeAPI{}}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the fake's base URL, http://127.0.0.1:PORT.
func (f *fakeModel) URL() string { return f.srv.URL }

// script sets the answers of a case: answer N of a conversation is steps[N].
func (f *fakeModel) script(key string, steps ...step) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripts[key] = steps
	turns := make([][]conformance.Block, len(steps))
	for i, s := range steps {
		if s.Tool != "" {
			turns[i] = []conformance.Block{conformance.Call(fmt.Sprintf("toolu_%s_%02d", key, i), s.Tool, s.Args)}
		} else {
			turns[i] = []conformance.Block{conformance.Say(s.Text)}
		}
	}
	// Not started: only its ServeHTTP is used, behind this server.
	f.anthropic[key] = &conformance.FakeAPI{Turns: turns, Model: "claude-sonnet-4-5"}
}

// saw returns the requests whose body contains s.
func (f *fakeModel) saw(s string) []modelRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []modelRequest
	for _, r := range f.requests {
		if bytes.Contains(r.Body, []byte(s)) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	key := caseMarker.FindString(string(body))
	f.mu.Lock()
	f.requests = append(f.requests, modelRequest{Path: r.URL.Path, Body: body})
	api := f.anthropic[key]
	steps := f.scripts[key]
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodConnect || r.URL.IsAbs():
		// Asked as a proxy (HTTPS_PROXY points here): nothing leaves the machine.
		http.Error(w, "this proxy forwards nothing", http.StatusForbidden)
	case strings.HasSuffix(r.URL.Path, "/responses"):
		f.responses(w, body, steps)
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		if api == nil {
			api = &conformance.FakeAPI{Model: "claude-sonnet-4-5"}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		api.ServeHTTP(w, r)
	case strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}
}

// responses answers an OpenAI Responses API request with the case's
// script (internal/fakemodel, which `wavehooks doctor` uses too).
func (f *fakeModel) responses(w http.ResponseWriter, body []byte, steps []step) {
	turns := make([]fakemodel.Block, len(steps))
	for i, s := range steps {
		turns[i] = fakemodel.Block{Text: s.Text, ToolName: s.Tool, ToolInput: s.Args}
	}
	fakemodel.ServeResponses(w, body, turns)
}
