package hooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// hookServer is a loopback HTTP endpoint for http hooks: it records every
// request and answers with what the test set.
type hookServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []seenRequest
	answer   func(w http.ResponseWriter, r *http.Request)
}

type seenRequest struct {
	Method, Path, ContentType, Authorization string
	Body                                     map[string]any
}

func newHookServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *hookServer {
	t.Helper()
	s := &hookServer{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen := seenRequest{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"),
			Authorization: r.Header.Get("Authorization")}
		_ = json.Unmarshal(body, &seen.Body)
		s.mu.Lock()
		s.requests = append(s.requests, seen)
		s.mu.Unlock()
		s.answer(w, r)
	}))
	require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:"), "tests post to loopback only")
	t.Cleanup(s.Close)
	return s
}

func (s *hookServer) seen() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.requests...)
}

func answerWith(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// httpHook configures one http hook for an event, with extra hook fields.
func httpHook(ev event.Event, url string, extra map[string]any, root map[string]any) string {
	h := map[string]any{"type": "http", "url": url}
	for k, v := range extra {
		h[k] = v
	}
	settings := map[string]any{"hooks": map[string]any{string(ev): []any{map[string]any{"hooks": []any{h}}}}}
	for k, v := range root {
		settings[k] = v
	}
	b, _ := json.Marshal(settings)
	return string(b)
}

func TestHTTPHookAnswers(t *testing.T) {
	deny := `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm over http"}}`
	cases := []struct {
		name   string
		event  event.Event
		answer func(http.ResponseWriter, *http.Request)
		check  func(t *testing.T, res hooks.Result)
	}{
		{"2xx JSON decides", event.PreToolUse, answerWith(200, deny), func(t *testing.T, res hooks.Result) {
			require.Equal(t, hooks.PermissionDeny, res.Permission)
			require.Equal(t, "no rm over http", res.Reason)
			require.Empty(t, res.Errors)
			require.Equal(t, 200, res.Runs[0].HTTPStatus)
			require.True(t, res.Runs[0].JSON)
		}},
		{"2xx empty body is a success with no output", event.UserPromptSubmit, answerWith(204, ""), func(t *testing.T, res hooks.Result) {
			require.False(t, res.Blocked)
			require.Empty(t, res.Errors)
			require.Empty(t, res.Context)
			require.Equal(t, "HTTP 204: no answer", res.Runs[0].Decision)
		}},
		{"2xx JSON adds context", event.UserPromptSubmit,
			answerWith(200, `{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "from the service"}}`),
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, []string{"from the service"}, res.AdditionalContext)
			}},
		{"2xx plain text is a non-blocking error and never context", event.UserPromptSubmit, answerWith(200, "looks fine to me"),
			func(t *testing.T, res hooks.Result) {
				require.Empty(t, res.Context)
				require.Empty(t, res.AdditionalContext)
				require.False(t, res.Blocked)
				require.Len(t, res.Errors, 1)
				require.Contains(t, res.Errors[0], "not a JSON object")
			}},
		{"2xx JSON that does not validate is a non-blocking error", event.PreToolUse,
			answerWith(200, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}}`),
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, hooks.PermissionNone, res.Permission, "the tool goes on")
				require.Len(t, res.Errors, 1)
				require.Contains(t, res.Errors[0], `permissionDecision must be "allow", "deny", "ask" or "defer", not "maybe"`)
			}},
		{"non-2xx is a non-blocking error, even with a deny in the body", event.PreToolUse, answerWith(503, deny),
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, hooks.PermissionNone, res.Permission)
				require.Len(t, res.Errors, 1)
				require.Contains(t, res.Errors[0], "answered HTTP 503")
				require.Equal(t, 503, res.Runs[0].HTTPStatus)
			}},
		{"a redirect is not followed", event.PreToolUse, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, func(t *testing.T, res hooks.Result) {
			require.Len(t, res.Errors, 1)
			require.Contains(t, res.Errors[0], "answered HTTP 302")
		}},
		{"an answer over 1 MiB is cut and denies a tool", event.PreToolUse, func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"systemMessage": "`+strings.Repeat("x", proc.MaxOutput)+`"}`)
		}, func(t *testing.T, res hooks.Result) {
			require.Equal(t, hooks.PermissionDeny, res.Permission)
			require.Contains(t, res.Reason, "exceeded 1048576 bytes")
			require.True(t, res.Runs[0].StdoutTruncated)
			require.Len(t, res.Runs[0].Stdout, proc.MaxOutput)
		}},
		{"an answer over 1 MiB elsewhere is an error", event.PostToolUse, func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, strings.Repeat(" ", proc.MaxOutput+10))
		}, func(t *testing.T, res hooks.Result) {
			require.False(t, res.Blocked)
			require.Len(t, res.Errors, 1)
			require.Contains(t, res.Errors[0], "was cut")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newHookServer(t, c.answer)
			e, root := setup(t, httpHook(c.event, srv.URL+"/hooks/check", nil, nil))
			in := input(c.event, root)
			res := e.Fire(context.Background(), in)
			require.Len(t, res.Runs, 1)
			require.True(t, res.Runs[0].Ran)
			require.Equal(t, "http", res.Runs[0].Type)
			require.Equal(t, "POST "+srv.URL+"/hooks/check", res.Runs[0].Command)
			c.check(t, res)

			// The service got the event's stdin JSON as the body.
			seen := srv.seen()
			require.Len(t, seen, 1)
			require.Equal(t, "POST", seen[0].Method)
			require.Equal(t, "/hooks/check", seen[0].Path)
			require.Equal(t, "application/json", seen[0].ContentType)
			var stdin map[string]any
			require.NoError(t, json.Unmarshal(res.Stdin, &stdin))
			require.Equal(t, stdin, seen[0].Body)
			require.Equal(t, string(c.event), seen[0].Body["hook_event_name"])
		})
	}
}

func TestHTTPHookTimeoutAndConnectionFailure(t *testing.T) {
	release := make(chan struct{})
	srv := newHookServer(t, func(w http.ResponseWriter, r *http.Request) {
		select { // answers only once the request is given up
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	e, root := setup(t, httpHook(event.PreToolUse, srv.URL+"/slow", map[string]any{"timeout": 0.3}, nil))
	res := e.Fire(context.Background(), input(event.PreToolUse, root))
	require.True(t, res.Runs[0].TimedOut)
	require.Equal(t, hooks.PermissionNone, res.Permission, "a timed-out http hook renders no decision")
	require.Equal(t, []string{"hook timed out after 300ms: `POST " + srv.URL + "/slow`"}, res.Errors)

	// Nothing listens at a closed server's address.
	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	e2, root2 := setup(t, httpHook(event.PostToolUse, url+"/gone", nil, nil))
	res = e2.Fire(context.Background(), input(event.PostToolUse, root2))
	require.False(t, res.Blocked)
	require.Len(t, res.Errors, 1)
	require.Contains(t, res.Errors[0], "http hook `POST "+url+"/gone` failed: ")
	require.Contains(t, res.Errors[0], "refused")
}

func TestHTTPHookHeadersReadOnlyTheAllowedEnvVars(t *testing.T) {
	t.Setenv("WAVE_TEST_TOKEN", "s3cret")
	t.Setenv("WAVE_TEST_OTHER", "must-not-leak")
	srv := newHookServer(t, answerWith(200, "{}"))
	extra := map[string]any{"headers": map[string]any{"Authorization": "Bearer $WAVE_TEST_TOKEN ${WAVE_TEST_OTHER}|$WAVE_TEST_TOKEN"},
		"allowedEnvVars": []string{"WAVE_TEST_TOKEN"}}
	cases := []struct {
		name   string
		root   map[string]any
		policy string
		want   string
	}{
		{"listed variables are read, others become empty", nil, "", "Bearer s3cret |s3cret"},
		{"the policy's list bounds the hook's", map[string]any{"httpHookAllowedEnvVars": []string{"WAVE_TEST_OTHER"}}, "", "Bearer  |"},
		{"a managed policy bounds a user's list", map[string]any{"httpHookAllowedEnvVars": []string{"WAVE_TEST_TOKEN"}},
			`{"httpHookAllowedEnvVars": []}`, "Bearer  |"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(httpHook(event.PreToolUse, srv.URL, extra, c.root)), 0o644))
			paths := settings.Paths{WaveHome: home, ProjectRoot: root}
			if c.policy != "" {
				paths.ManagedFile = filepath.Join(home, "managed.json")
				require.NoError(t, os.WriteFile(paths.ManagedFile, []byte(c.policy), 0o644))
			}
			cfg := settings.Load(paths, nil)
			require.Empty(t, cfg.Diagnostics())
			before := len(srv.seen())
			res := hooks.NewEngine(cfg).Fire(context.Background(), input(event.PreToolUse, root))
			require.Empty(t, res.Errors)
			seen := srv.seen()
			require.Len(t, seen, before+1)
			require.Equal(t, c.want, seen[before].Authorization)
		})
	}
}

func TestAllowedHTTPHookURLs(t *testing.T) {
	srv := newHookServer(t, answerWith(200, `{"systemMessage": "posted"}`))
	cases := []struct {
		name    string
		user    []string // the user settings' allowedHttpHookUrls; nil: not set
		managed []string // the managed file's; nil: not set
		runs    bool
	}{
		{"no list: any URL", nil, nil, true},
		{"a matching pattern", []string{"http://example.invalid/*", srv.URL + "/hooks/*"}, nil, true},
		{"a wildcard port", []string{"http://127.0.0.1:*/hooks/*"}, nil, true},
		{"no pattern matches", []string{"https://hooks.example.invalid/*"}, nil, false},
		{"an empty list allows nothing", []string{}, nil, false},
		{"the managed list is the list: a user's cannot widen it", []string{srv.URL + "/*"}, []string{"https://corp.example.invalid/*"}, false},
		{"the managed list allows", nil, []string{srv.URL + "/hooks/a"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			var rootKeys map[string]any
			if c.user != nil {
				rootKeys = map[string]any{"allowedHttpHookUrls": c.user}
			}
			require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"),
				[]byte(httpHook(event.Stop, srv.URL+"/hooks/a", nil, rootKeys)), 0o644))
			paths := settings.Paths{WaveHome: home, ProjectRoot: root}
			if c.managed != nil {
				paths.ManagedFile = filepath.Join(home, "managed.json")
				b, _ := json.Marshal(map[string]any{"allowedHttpHookUrls": c.managed})
				require.NoError(t, os.WriteFile(paths.ManagedFile, b, 0o644))
			}
			cfg := settings.Load(paths, nil)
			before := len(srv.seen())
			res := hooks.NewEngine(cfg).Fire(context.Background(), input(event.Stop, root))
			if c.runs {
				require.Empty(t, cfg.Diagnostics())
				require.True(t, res.Runs[0].Ran)
				require.Equal(t, []string{"posted"}, res.Warnings)
				require.Len(t, srv.seen(), before+1)
				return
			}
			require.False(t, res.Runs[0].Ran)
			require.Contains(t, res.Runs[0].Skipped, "is not in allowedHttpHookUrls")
			require.Len(t, res.Warnings, 1)
			require.Contains(t, res.Warnings[0], "did not run: its URL "+srv.URL+"/hooks/a is not in allowedHttpHookUrls")
			require.Len(t, srv.seen(), before, "nothing was posted")
			var codes []string
			for _, d := range cfg.Diagnostics() {
				codes = append(codes, d.Code)
			}
			require.Equal(t, []string{settings.CodeURLNotAllowed}, codes, "lint says so too")
		})
	}
}
