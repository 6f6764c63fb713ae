package hooks_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestURLPatternsMatchTheParts is the table of what an allowedHttpHookUrls
// pattern admits: scheme, host, port and path each matched by their own rule
// on the URL as net/http parses it, never a glob over the text.
func TestURLPatternsMatchTheParts(t *testing.T) {
	cases := []struct {
		pattern, url string
		admits       bool
	}{
		// The two bypasses of a glob over the raw text.
		{"http://127.0.0.1:*/hooks/*", "http://127.0.0.1:1@otherhost/hooks/x", false},
		{"https://*.corp.example/*", "https://evil.example/.corp.example/x", false},
		{"http://127.0.0.1:*/hooks/*", "http://127.0.0.1:8080/hooks/x", true},
		{"https://*.corp.example/*", "https://hooks.corp.example/x", true},

		// User information is never admitted, whatever the pattern.
		{"http://*:*/*", "http://user:pass@example.test/x", false},
		{"http://*:*/*", "http://user@example.test/x", false},

		// Host: * stays inside one label; * alone is any host; case and a final dot do not matter.
		{"https://*.corp.example/*", "https://corp.example/x", false},
		{"https://*.corp.example/*", "https://a.b.corp.example/x", false},
		{"https://*.*.corp.example/*", "https://a.b.corp.example/x", true},
		{"https://*.corp.example/*", "https://evil-corp.example/x", false},
		{"https://*.corp.example/*", "https://hooks.corp.example.evil.test/x", false},
		{"https://api-*.corp.example/*", "https://api-eu.corp.example/x", true},
		{"https://api-*.corp.example/*", "https://web.corp.example/x", false},
		{"https://*/*", "https://anything.example.test/x", true},
		{"https://HOOKS.Corp.Example/*", "https://hooks.corp.example./x", true},
		{"https://hooks.corp.example/*", "https://HOOKS.CORP.EXAMPLE/x", true},
		{"https://*.corp.example/*", "https://.corp.example/x", false},
		{"https://*.corp.example/*", "https://%C3%A9.corp.example/x", true},       // net/http dials é.corp.example
		{"https://hooks.corp.example/*", "https://hooks%2ecorp.example/x", false}, // not a URL to net/url
		{"https://hooks.corp.example/*", "https://hooks.corp.example%2f.evil.test/x", false},

		// IP addresses compare as addresses.
		{"http://[::1]:*/*", "http://[0:0::1]:9/x", true},
		{"http://127.0.0.1:*/*", "http://127.000.000.001:9/x", false},
		{"http://127.0.0.1:*/*", "http://2130706433:9/x", false},

		// Port: * is any port; none is the scheme's default.
		{"https://h.example/*", "https://h.example:443/x", true},
		{"https://h.example/*", "https://h.example:8443/x", false},
		{"http://h.example/*", "http://h.example:80/x", true},
		{"http://h.example/*", "http://h.example/x", true},
		{"*://h.example/*", "https://h.example/x", true},
		{"*://h.example/*", "https://h.example:80/x", false},
		{"http://h.example:8080/*", "http://h.example:08080/x", true},
		{"http://h.example:8080/*", "http://h.example:8081/x", false},
		{"http://h.example:*/*", "http://h.example:1/x", true},

		// Scheme.
		{"https://h.example/*", "http://h.example:443/x", false},
		{"HTTPS://h.example/*", "https://h.example/x", true},

		// Path: * is any run of characters, slashes and the query included; no path is "/".
		{"https://h.example/hooks/*", "https://h.example/hooks/a/b?token=1", true},
		{"https://h.example/hooks/*", "https://h.example/admin", false},
		{"https://h.example/hooks/*", "https://h.example/hooks", false},
		{"https://h.example/hooks", "https://h.example/hooks?x=1", false},
		{"https://h.example/hooks", "https://h.example/hooks#frag", true},
		{"https://h.example", "https://h.example/", true},
		{"https://h.example", "https://h.example", true},
		{"https://h.example", "https://h.example/x", false},
		{"https://h.example/*", "https://h.example", true},
		// Dot segments, which a server may resolve out of the admitted path, are never admitted.
		{"https://h.example/hooks/*", "https://h.example/hooks/../admin", false},
		{"https://h.example/hooks/*", "https://h.example/hooks/%2e%2e/admin", false},
		{"https://h.example/hooks/*", "https://h.example/hooks/%2E./admin", false},
		{"https://h.example/hooks/*", "https://h.example/hooks/..;/admin", false},
		{"https://h.example/hooks/*", "https://h.example/hooks/..%5Cadmin", false},
		{"https://h.example/hooks/*", "https://h.example/hooks/./x", false},
		{"https://h.example/hooks/*", "https://h.example/hooks/..x", true},

		// Not an http(s) URL.
		{"*://h.example/*", "ftp://h.example/x", false},
		{"https://*/*", "https:h.example/x", false},

		// A pattern that cannot be read admits nothing.
		{"127.0.0.1:*/hooks/*", "http://127.0.0.1:1/hooks/x", false},
		{"http://u@127.0.0.1:*/*", "http://u@127.0.0.1:1/x", false},
		{"http://127.0.0.1:8*/*", "http://127.0.0.1:80/x", false},
	}
	for _, c := range cases {
		t.Run(c.pattern+" "+c.url, func(t *testing.T) {
			p := settings.HTTPPolicy{URLs: []string{c.pattern}, URLsSet: true, URLsFrom: []string{"settings.json"}}
			ok, why := p.AllowsURL(c.url)
			require.Equal(t, c.admits, ok, why)
			if !ok {
				require.Contains(t, why, "allowedHttpHookUrls")
			}
		})
	}
}

// TestURLPatternLint: lint flags a pattern that cannot be read (it admits
// nothing) and a hook URL that no pattern admits.
func TestURLPatternLint(t *testing.T) {
	cases := []struct {
		name    string
		pattern string
		want    string // the error about the pattern; "" when it reads
	}{
		{"no scheme", "127.0.0.1:*/hooks/*", `does not start with a scheme and "://"`},
		{"another scheme", "ftp://h.example/*", `its scheme is "ftp"`},
		{"user information", "http://me@h.example/*", "user information"},
		{"a half-wildcard port", "http://h.example:80*/*", `its port "80*" is not a number`},
		{"a port out of range", "http://h.example:70000/*", `its port "70000"`},
		{"no port after the colon", "http://h.example:/*", `":" but no port`},
		{"no host", "http:///hooks", "no host"},
		{"an empty label", "https://*..corp.example/*", "empty label"},
		{"a fragment", "https://h.example/x#y", "fragment"},
		{"a wildcard in an IPv6 address", "http://[::*]:*/*", "is not an IPv6 address"},
		{"a good one", "https://*.corp.example:*/hooks/*", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			settingsJSON := map[string]any{"allowedHttpHookUrls": []string{"http://127.0.0.1:*/ok/*", c.pattern},
				"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{
					map[string]any{"type": "http", "url": "http://127.0.0.1:1@otherhost/ok/x"}}}}}}
			b, err := json.Marshal(settingsJSON)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), b, 0o644))
			cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: t.TempDir()}, nil)
			var got []string
			for _, d := range cfg.Diagnostics() {
				got = append(got, d.Code+": "+d.Message)
			}
			notAllowed := "url-not-allowed: this http hook will not run: its URL http://127.0.0.1:1@otherhost/ok/x is not admitted by allowedHttpHookUrls"
			if c.want == "" {
				require.Len(t, got, 1, "%q", got)
				require.True(t, strings.HasPrefix(got[0], notAllowed), got[0])
				return
			}
			require.Len(t, got, 2, "%q", got)
			require.True(t, strings.HasPrefix(got[0], "bad-url-pattern: allowedHttpHookUrls[1] "), got[0])
			require.Contains(t, got[0], c.want)
			require.Contains(t, got[0], "it admits no URL")
			require.True(t, strings.HasPrefix(got[1], notAllowed), got[1])
			require.Contains(t, got[1], "user information")
		})
	}
}

// TestRefusedURLsPostNothing runs real http hooks against a loopback server:
// a URL the old glob admitted through user information or a host spelt in
// the path reaches the server before the fix, and nothing is posted after.
func TestRefusedURLsPostNothing(t *testing.T) {
	srv := newHookServer(t, answerWith(200, `{"systemMessage": "posted"}`))
	port := strings.TrimPrefix(srv.URL, "http://127.0.0.1:")
	cases := []struct {
		name, pattern, url string
		posts              bool
	}{
		{"the admitted URL posts", "http://127.0.0.1:*/hooks/*", srv.URL + "/hooks/x", true},
		{"user information naming the admitted host: Go would post to localhost", "http://127.0.0.1:*/hooks/*",
			"http://127.0.0.1:1@localhost:" + port + "/hooks/x", false},
		{"the admitted domain spelt in the path", "http://*.localhost:*/*", srv.URL + "/.localhost:1/x", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"),
				[]byte(httpHook(event.Stop, c.url, nil, map[string]any{"allowedHttpHookUrls": []string{c.pattern}})), 0o644))
			cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
			before := len(srv.seen())
			res := hooks.NewEngine(cfg).Fire(context.Background(), input(event.Stop, root))
			if c.posts {
				require.True(t, res.Runs[0].Ran)
				require.Equal(t, []string{"posted"}, res.Warnings)
				require.Len(t, srv.seen(), before+1)
				return
			}
			require.False(t, res.Runs[0].Ran)
			require.Contains(t, res.Runs[0].Skipped, "allowedHttpHookUrls")
			require.Len(t, res.Warnings, 1)
			require.Contains(t, res.Warnings[0], "did not run: its URL "+c.url)
			require.Len(t, srv.seen(), before, "nothing was posted")
		})
	}
}

// FuzzURLPolicy holds the rules that matter whatever the pattern and the
// URL: nothing panics; a URL with user information, or one net/url does not
// read as an absolute http(s) URL, is never admitted; and an admitted URL's
// host, as the client dials it, is one the pattern names: the pattern's host
// itself when it has no *, else a host with as many labels.
func FuzzURLPolicy(f *testing.F) {
	for _, seed := range [][2]string{
		{"http://127.0.0.1:*/hooks/*", "http://127.0.0.1:1@otherhost/hooks/x"},
		{"https://*.corp.example/*", "https://evil.example/.corp.example/x"},
		{"https://*.corp.example/*", "https://hooks.corp.example/x?y=1"},
		{"http://[::1]:*/*", "http://[::1]:8080/x"},
		{"*://h.example/a*b", "https://h.example/a/../b"},
		{"https://*/*", "https://h.example:443/%2e%2e/x"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, raw string) {
		p := settings.HTTPPolicy{URLs: []string{pattern}, URLsSet: true, URLsFrom: []string{"f"}}
		ok, why := p.AllowsURL(raw)
		if !ok {
			require.NotEmpty(t, why)
			return
		}
		u, err := url.Parse(raw)
		require.NoError(t, err, "admitted a URL net/url cannot read")
		require.Nil(t, u.User, "admitted a URL with user information")
		require.Contains(t, []string{"http", "https"}, u.Scheme)
		require.NotEmpty(t, u.Host)
		_, rest, _ := strings.Cut(pattern, "://")
		authority, _, _ := strings.Cut(rest, "/")
		authority, _, _ = strings.Cut(authority, "?")
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		patHost := authority
		if i := strings.LastIndex(authority, ":"); i >= 0 && !strings.HasSuffix(authority, "]") {
			patHost = authority[:i]
		}
		patHost = strings.ToLower(strings.TrimSuffix(strings.Trim(patHost, "[]"), "."))
		switch {
		case patHost == "*":
		case !strings.Contains(patHost, "*"):
			if ip := net.ParseIP(patHost); ip != nil {
				require.True(t, ip.Equal(net.ParseIP(host)), "pattern %q admitted host %q", pattern, host)
			} else {
				require.Equal(t, patHost, host, "pattern %q admitted %q", pattern, raw)
			}
		default:
			require.Equal(t, strings.Count(patHost, "."), strings.Count(host, "."), "pattern %q admitted %q", pattern, raw)
		}
	})
}
