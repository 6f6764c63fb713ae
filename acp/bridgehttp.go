package acp

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/loopback"
)

// The hook bridge over http (issue #39 item 4). `wavehooks acp-hook` costs
// a process per tool call; Claude Code sends a hook over http with no
// process, and since 2.1.295 can fail closed on one (onFailure "block": no
// answer, a refused request or a timeout blocks the tool). So, for an agent
// whose integration says it can (agents.Integration.HTTPHooks), the bridge
// also answers on loopback: 127.0.0.1 on a random port, one path, and only
// a request that carries the bridge's secret in its header. Any local user
// can connect to a loopback port, unlike the bridge's socket in its 0700
// directory: on Linux a connection another user's socket made is closed as
// it is accepted (internal/loopback reads its owner from the kernel's TCP
// table), and everywhere the secret keeps them out: 32 random bytes, made
// when the endpoint starts, that reach Claude Code in its environment (not
// its command line, where the adapter puts the settings, and no file), are
// looked up by their SHA-256, and are never logged. Each session request
// gets a secret of its own, bound to its session (sessionSecret). A request without it is
// answered 403 with no body, which Claude Code counts as the hook's failure
// and, told to fail closed, as a block. A request with it is decided as a
// hook command's input is, by bridgedPreToolUse: each one is judged, a
// replay too.

const (
	// bridgeHTTPPath is the bridge's one http path.
	bridgeHTTPPath = "/wavehooks/pre-tool-use"
	// bridgeHTTPHeader carries the bridge's secret.
	bridgeHTTPHeader = "X-Wavehooks-Bridge"
	// bridgeHTTPEnvVar is the variable of Claude Code's environment the
	// secret is read from into the header.
	bridgeHTTPEnvVar = "WAVEHOOKS_ACP_BRIDGE"
)

// bridgeHTTP is the bridge's http endpoint on loopback.
type bridgeHTTP struct {
	srv *http.Server
	ln  net.Listener
	// hook is the endpoint's hook with no secret: each session's request
	// gets a copy with a secret of its own (sessionHook).
	hook   agents.HTTPHook
	closed bool // set under the proxy's lock: no handler starts after
	// secrets are the sessions' secrets, by their SHA-256 (a lookup that
	// leaks nothing of a secret's bytes), under the proxy's lock.
	secrets map[[sha256.Size]byte]*sessionSecret
}

// sessionSecret is one session's secret and the session it is bound to:
// named by the request when it names one (session/load, session/resume),
// else the session of the first request that carries it (session/new and
// fork, whose id the agent makes). A secret used for another session than
// its own is refused, so one session's Claude Code cannot have another
// session's tool calls judged.
type sessionSecret struct {
	secret  string
	session string // "" until bound
}

// newSecret is 32 random bytes in hex.
func newSecret() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("the hook bridge's secret: %w", err)
	}
	return hex.EncodeToString(raw), nil
}

// sessionHook is the http hook for one session request: the endpoint's,
// with a secret made for that session, bound to session when it is known.
// Nil when the endpoint is not started (the command hook is used).
func (b *bridge) sessionHook(session string) (*agents.HTTPHook, error) {
	b.p.mu.Lock()
	defer b.p.mu.Unlock()
	h := b.http
	if h == nil || h.closed {
		return nil, nil
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	h.secrets[sha256.Sum256([]byte(secret))] = &sessionSecret{secret: secret, session: session}
	hook := h.hook
	hook.Secret = secret
	return &hook, nil
}

// bind checks that a request carrying s is about s's session, binding s
// to session on its first use; the caller holds the proxy's lock.
func (s *sessionSecret) bind(session string) error {
	switch {
	case s.session == "":
		s.session = session
	case s.session != session:
		return fmt.Errorf("the secret of session %q was given for session %q", s.session, session)
	}
	return nil
}

// startHTTP opens the bridge's loopback endpoint once, for the agent it
// serves; the hook it returns goes into the agent's sessions.
func (b *bridge) startHTTP() (*agents.HTTPHook, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the hook bridge's loopback endpoint: %w", err)
	}
	ln = loopback.SameUser(ln, func(from net.Addr, err error) {
		b.p.log.Warn("the hook bridge closed a connection that is not this user's", "from", from.String(), "err", err)
	})
	h := &bridgeHTTP{ln: ln, hook: agents.HTTPHook{URL: "http://" + ln.Addr().String() + bridgeHTTPPath,
		Header: bridgeHTTPHeader, EnvVar: bridgeHTTPEnvVar}, secrets: map[[sha256.Size]byte]*sessionSecret{}}
	mux := http.NewServeMux()
	mux.HandleFunc(bridgeHTTPPath, b.serveHTTP)
	h.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	b.p.mu.Lock()
	b.http = h
	b.p.mu.Unlock()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			b.p.log.Warn("the hook bridge's loopback endpoint stopped; the agent's tool calls are blocked from now on", "err", err)
		}
	}()
	return &h.hook, nil
}

// closeHTTP closes the endpoint and every connection to it: a hook call in
// flight gets no answer, which the agent counts as a block.
func (b *bridge) closeHTTP() {
	b.p.mu.Lock()
	h := b.http
	if h != nil {
		h.closed = true
	}
	b.p.mu.Unlock()
	if h != nil {
		_ = h.srv.Close()
	}
}

// serveHTTP answers one http hook call: a POST with a session's secret,
// about that session, gets the agent's hook answer; anything else is
// refused without one.
func (b *bridge) serveHTTP(w http.ResponseWriter, r *http.Request) {
	b.p.mu.Lock()
	h := b.http
	if h == nil || h.closed {
		b.p.mu.Unlock()
		http.Error(w, "", http.StatusServiceUnavailable)
		return
	}
	b.wg.Add(1) // closeBridge waits for the decision, as for the socket's
	// Looked up by its SHA-256: a map lookup that compares hashes leaks
	// nothing of the secret's bytes, so no constant-time compare is needed.
	got := r.Header.Get(bridgeHTTPHeader)
	secret := h.secrets[sha256.Sum256([]byte(got))]
	b.p.mu.Unlock()
	defer b.wg.Done()
	if secret == nil {
		b.p.log.Warn("the hook bridge refused an http request with no valid secret", "from", r.RemoteAddr, "secret given", got != "")
		w.WriteHeader(http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, bridgeMaxInput+1))
	if err == nil && len(data) > bridgeMaxInput {
		err = fmt.Errorf("it is larger than %d bytes", bridgeMaxInput)
	}
	var in acpmsg.BridgeInput
	if err == nil {
		err = json.Unmarshal(data, &in)
	}
	if err == nil {
		b.p.mu.Lock()
		serr := secret.bind(in.SessionID)
		b.p.mu.Unlock()
		if serr != nil {
			b.p.log.Warn("the hook bridge refused an http request", "from", r.RemoteAddr, "why", serr)
			w.WriteHeader(http.StatusForbidden)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.answer(&in, err))
}
