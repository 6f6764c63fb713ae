package hooks

import (
	"bytes"
	"context"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

var envRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// headerValue interpolates $NAME and ${NAME} in a header value: the
// variables the hook (and the policy) allow are read from env, every other
// reference becomes "", as Claude Code does.
func headerValue(p *settings.HTTPPolicy, h *settings.Hook, value string, env []string) string {
	return envRefRE.ReplaceAllStringFunc(value, func(ref string) string {
		m := envRefRE.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if !p.EnvAllowed(h, name) {
			return ""
		}
		return lookupEnv(env, name)
	})
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- { // later entries win, as exec does
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// httpClient posts http hooks' requests. Redirects are not followed (a 3xx
// is a non-2xx answer): allowedHttpHookUrls is checked on the URL the
// settings name, and a redirect must not lead elsewhere. Connections are
// not kept: hooks are rare, and an idle connection would outlive the event.
var httpClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Transport: func() http.RoundTripper {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableKeepAlives = true
		return t
	}(),
}

// runHTTP POSTs the event's JSON to an http hook's URL, within the hook's
// timeout, and keeps at most MaxOutput bytes of the answer.
func (e *Engine) runHTTP(ctx context.Context, cfg *settings.Config, h *settings.Hook, stdin []byte) hookOutcome {
	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	start := time.Now()
	o := hookOutcome{}
	fail := func(err error) hookOutcome {
		o.Duration, o.ExitCode = time.Since(start), -1
		switch {
		case ctx.Err() != nil:
			o.Cancelled = true
		case tctx.Err() != nil:
			o.TimedOut = true
		default:
			o.StartErr = err.Error()
		}
		return o
	}
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, h.URL, bytes.NewReader(bytes.TrimSpace(stdin)))
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, hd := range h.Headers {
		req.Header.Set(hd.Name, headerValue(&cfg.HTTPPolicy, h, hd.Value, e.runner.Env))
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return fail(settings.UnwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, proc.MaxOutput+1))
	if err != nil {
		return fail(err)
	}
	o.Duration, o.HTTPStatus = time.Since(start), resp.StatusCode
	if len(body) > proc.MaxOutput {
		body, o.StdoutTruncated = body[:proc.MaxOutput], true
	}
	o.Stdout = string(body)
	return o
}

// interpretHTTP reads an http hook's answer as Claude Code does: a 2xx
// answer with an empty body is a success with no output, one with a JSON
// object is read like a command hook's JSON answer; any other body, any
// other status, a failed connection or a timeout is a non-blocking error.
// An answer cut at MaxOutput is an error, and on the events that decide a
// permission, a deny.
func interpretHTTP(ev event.Event, h *settings.Hook, o hookOutcome) verdict {
	what := fmt.Sprintf("http hook `%s`", h.Display())
	switch {
	case o.TimedOut:
		return verdict{err: fmt.Sprintf("hook timed out after %s: `%s`", settings.Seconds(h.Timeout), h.Display()), summary: "timed out"}
	case o.Cancelled:
		return verdict{err: what + " was cancelled", summary: "cancelled"}
	case o.StartErr != "":
		return verdict{err: what + " failed: " + o.StartErr, summary: "request failed: non-blocking error"}
	case o.HTTPStatus < 200 || o.HTTPStatus > 299:
		msg := fmt.Sprintf("%s answered HTTP %d", what, o.HTTPStatus)
		if line := firstLine(strings.TrimSpace(o.Stdout)); line != "" {
			msg += ": " + oneLineCut(line, 200)
		}
		return verdict{err: msg, summary: fmt.Sprintf("HTTP %d: non-blocking error", o.HTTPStatus)}
	case o.StdoutTruncated:
		msg := fmt.Sprintf("the answer of %s exceeded %d bytes and was cut; it is ignored", what, proc.MaxOutput)
		if ev.DecidesPermission() {
			return verdict{permission: PermissionDeny, reason: msg, err: msg, summary: "answer cut: deny"}
		}
		return verdict{err: msg, summary: "answer cut: non-blocking error"}
	}
	body := strings.TrimSpace(o.Stdout)
	status := fmt.Sprintf("HTTP %d", o.HTTPStatus)
	switch {
	case body == "":
		return verdict{summary: status + ": no answer"}
	case body[0] != '{':
		return verdict{err: fmt.Sprintf("%s answered %s with a body that is not a JSON object; it is ignored", what, status),
			summary: status + ": not JSON: non-blocking error"}
	}
	v := strictJSON(ev, h, []byte(body), "http")
	v.summary = status + ", " + v.summary
	return v
}

func oneLineCut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
