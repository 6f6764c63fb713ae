package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// HTTPPolicy is what the settings files say about http hooks, merged:
// allowedHttpHookUrls (where they may post) and httpHookAllowedEnvVars
// (which environment variables their headers may read). Lists from several
// files are joined, except that a list in the managed settings file is the
// list: a policy no other file can widen.
type HTTPPolicy struct {
	// URLs are the URL patterns http hooks may post to (scheme, host, port
	// and path matched each by its own rule: urlpolicy.go); URLsFrom names
	// the files that set them. Without any file setting the key, every URL
	// is allowed; an empty list allows none.
	URLs     []string
	URLsSet  bool
	URLsFrom []string
	// EnvVars, when EnvVarsSet, bounds every hook's allowedEnvVars.
	EnvVars    []string
	EnvVarsSet bool

	managedURLs, managedEnv bool
}

// merge adds one settings file's http hook policy.
func (p *HTTPPolicy) merge(f *File) {
	if f.Source == SourceVSCode {
		return
	}
	managed := f.Source == SourceManaged
	if urls := f.Settings.AllowedHTTPHookURLs; urls != nil && !p.managedURLs {
		if managed {
			p.URLs, p.URLsFrom = nil, nil
		}
		p.URLs, p.URLsSet, p.managedURLs = append(p.URLs, urls...), true, managed
		p.URLsFrom = append(p.URLsFrom, f.Path)
	}
	if vars := f.Settings.HTTPHookAllowedEnvVars; vars != nil && !p.managedEnv {
		if managed {
			p.EnvVars = nil
		}
		p.EnvVars, p.EnvVarsSet, p.managedEnv = append(p.EnvVars, vars...), true, managed
	}
}

// AllowsURL reports whether http hooks may post to url, and if not, why.
// The URL and the patterns are matched part by part (urlpolicy.go): a
// pattern that cannot be read admits nothing.
func (p *HTTPPolicy) AllowsURL(url string) (bool, string) {
	if !p.URLsSet {
		return true, ""
	}
	u, err := parseHookURL(url)
	if err != nil {
		return false, fmt.Sprintf("its URL %s is not admitted by allowedHttpHookUrls (set in %s): %v", url, strings.Join(p.URLsFrom, ", "), err)
	}
	for _, s := range p.URLs {
		if pat, err := parseURLPattern(s); err == nil && pat.admits(u) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("its URL %s is not in allowedHttpHookUrls (set in %s)", url, strings.Join(p.URLsFrom, ", "))
}

// envAllowed reports whether a header of h may read the variable name.
func (p *HTTPPolicy) envAllowed(h *Hook, name string) bool {
	listed := false
	for _, v := range h.AllowedEnvVars {
		if v == name {
			listed = true
			break
		}
	}
	if !listed || !p.EnvVarsSet {
		return listed
	}
	for _, v := range p.EnvVars {
		if v == name {
			return true
		}
	}
	return false
}

var envRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// headerValue interpolates $NAME and ${NAME} in a header value: the
// variables the hook (and the policy) allow are read from env, every other
// reference becomes "", as Claude Code does.
func headerValue(p *HTTPPolicy, h *Hook, value string, env []string) string {
	return envRefRE.ReplaceAllStringFunc(value, func(ref string) string {
		m := envRefRE.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if !p.envAllowed(h, name) {
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
func (e *Engine) runHTTP(ctx context.Context, cfg *Config, h *Hook, stdin []byte) hookOutcome {
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
		req.Header.Set(hd.Name, headerValue(&cfg.HTTPPolicy, h, hd.Value, e.runner.env))
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return fail(unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxOutput+1))
	if err != nil {
		return fail(err)
	}
	o.Duration, o.HTTPStatus = time.Since(start), resp.StatusCode
	if len(body) > MaxOutput {
		body, o.StdoutTruncated = body[:MaxOutput], true
	}
	o.Stdout = string(body)
	return o
}

// unwrapURLError drops net/http's "Post "url": " prefix: messages name the hook already.
func unwrapURLError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// interpretHTTP reads an http hook's answer as Claude Code does: a 2xx
// answer with an empty body is a success with no output, one with a JSON
// object is read like a command hook's JSON answer; any other body, any
// other status, a failed connection or a timeout is a non-blocking error.
// An answer cut at MaxOutput is an error, and on the events that decide a
// permission, a deny.
func interpretHTTP(ev Event, h *Hook, o hookOutcome) verdict {
	what := fmt.Sprintf("http hook `%s`", h.Display())
	switch {
	case o.TimedOut:
		return verdict{err: fmt.Sprintf("hook timed out after %s: `%s`", seconds(h.Timeout), h.Display()), summary: "timed out"}
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
		msg := fmt.Sprintf("the answer of %s exceeded %d bytes and was cut; it is ignored", what, MaxOutput)
		if ev.decidesPermission() {
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
