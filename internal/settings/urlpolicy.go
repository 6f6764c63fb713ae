package settings

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// allowedHttpHookUrls is matched on the parts of a URL, never on its text: a
// glob over the raw text let `http://127.0.0.1:*/hooks/*` admit
// `http://127.0.0.1:1@otherhost/hooks/x` (Go posts to otherhost) and
// `https://*.corp.example/*` admit `https://evil.example/.corp.example/x`.
// A pattern is read into scheme, host, port and path; a hook's URL is parsed
// with net/url, as the http client that posts it parses it, and each part is
// compared with its own rule (docs/hooks.md, "allowedHttpHookUrls"):
//
//   - scheme: http, https, or * for either; case does not matter;
//   - host: compared in lower case, without a final dot; * stands for any
//     run of characters inside one label (it never crosses a dot), except
//     that a host that is * alone admits any host; an IP address literal is
//     compared as an address;
//   - port: a number, * for any port, or none for the scheme's default port
//     (80, 443): `https://h/x` and `https://h:443/x` are the same URL;
//   - path (with the query, when the URL has one): * stands for any run of
//     characters, slashes included; no pattern path is the same as "/".
//
// A hook URL with user information (`user:pass@`), with a `.` or `..` path
// segment (plain or percent-encoded: a server may resolve it out of the path
// a pattern admitted), or that is not an absolute http(s) URL is admitted by
// no pattern. A pattern that cannot be read admits nothing, and lint says so.

// urlPattern is one allowedHttpHookUrls entry, read.
type urlPattern struct {
	scheme string // "http", "https" or "*"
	host   string // lower case, no final dot; may hold *
	port   string // "" (the scheme's default), "*" or digits
	path   string // starts with "/"; may hold *
}

// parseURLPattern reads one allowedHttpHookUrls entry, or says why it cannot.
func parseURLPattern(s string) (urlPattern, error) {
	var p urlPattern
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return p, errors.New(`it does not start with a scheme and "://" (http://, https:// or *://)`)
	}
	switch p.scheme = strings.ToLower(scheme); p.scheme {
	case "http", "https", "*":
	default:
		return p, fmt.Errorf("its scheme is %q: http hooks post over http or https (or * for either)", scheme)
	}
	authority, path := rest, "/"
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if strings.Contains(path, "#") {
		return p, errors.New("it has a fragment (#…), which is never sent")
	}
	if strings.HasPrefix(path, "?") {
		path = "/" + path
	}
	if strings.Contains(authority, "@") {
		return p, errors.New("it has user information (…@): a URL with user information is never admitted")
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		end := strings.Index(authority, "]")
		if end < 0 {
			return p, errors.New("its IPv6 address has no closing ]")
		}
		host, port = authority[1:end], authority[end+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return p, fmt.Errorf("%q after its IPv6 address is not a port", port)
		}
		port = strings.TrimPrefix(port, ":")
		if net.ParseIP(host) == nil {
			return p, fmt.Errorf("%q is not an IPv6 address (no * inside brackets)", host)
		}
	} else if i := strings.LastIndex(authority, ":"); i >= 0 {
		host, port = authority[:i], authority[i+1:]
		if port == "" {
			return p, errors.New(`it has ":" but no port after it`)
		}
	}
	if port != "" && port != "*" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return p, fmt.Errorf("its port %q is not a number from 1 to 65535 or *", port)
		}
	}
	p.host, p.port, p.path = normHost(host), port, path
	if p.host == "" {
		return p, errors.New("it has no host")
	}
	for _, label := range strings.Split(p.host, ".") {
		if label == "" {
			return p, fmt.Errorf("its host %q has an empty label", host)
		}
	}
	if strings.ContainsAny(p.host, " %\\") {
		return p, fmt.Errorf("its host %q has a character no host name has", host)
	}
	return p, nil
}

// normHost is a host as compared: lower case, without one final dot.
func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// hookURL is an http hook's URL in the parts a pattern is matched on.
type hookURL struct {
	scheme, host, port, path string
}

// parseHookURL parses an http hook's URL as net/http will, and refuses the
// URLs no pattern may admit.
func parseHookURL(s string) (hookURL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return hookURL{}, fmt.Errorf("it is not a URL (%v)", UnwrapURLError(err))
	case u.User != nil:
		return hookURL{}, errors.New("it has user information (…@), which allowedHttpHookUrls never admits")
	case u.Scheme != "http" && u.Scheme != "https":
		return hookURL{}, errors.New("it is not an http:// or https:// URL")
	case u.Opaque != "" || u.Host == "":
		return hookURL{}, errors.New("it has no host")
	}
	host := normHost(u.Hostname())
	if net.ParseIP(host) == nil {
		for _, label := range strings.Split(host, ".") {
			if label == "" {
				return hookURL{}, fmt.Errorf("its host %q has an empty label", u.Hostname())
			}
		}
	}
	port := defaultPort[u.Scheme]
	if u.Port() != "" {
		n, err := strconv.Atoi(u.Port())
		if err != nil || n < 1 || n > 65535 {
			return hookURL{}, fmt.Errorf("its port %q is not a number from 1 to 65535", u.Port())
		}
		port = strconv.Itoa(n)
	}
	path := u.EscapedPath() // what the request line carries (u.RequestURI)
	if path == "" {
		path = "/"
	}
	if seg, ok := dotSegment(path); ok {
		return hookURL{}, fmt.Errorf("its path has a %q segment, which a server may resolve out of the path a pattern admits", seg)
	}
	if u.RawQuery != "" || u.ForceQuery {
		path += "?" + u.RawQuery
	}
	return hookURL{scheme: u.Scheme, host: host, port: port, path: path}, nil
}

// defaultPort is each scheme's port when a URL names none.
var defaultPort = map[string]string{"http": "80", "https": "443"}

// dotSegment finds a "." or ".." segment in an escaped path: plain or
// percent-encoded, with path parameters (";…") after it, and with an encoded
// backslash (%5C) counted as a separator, as some servers read them.
func dotSegment(path string) (string, bool) {
	lower := strings.ReplaceAll(strings.ToLower(path), "%5c", "/")
	for _, seg := range strings.Split(lower, "/") {
		name, _, _ := strings.Cut(seg, ";")
		if name = strings.ReplaceAll(name, "%2e", "."); name == "." || name == ".." {
			return seg, true
		}
	}
	return "", false
}

// admits reports whether the pattern admits the URL, part by part.
func (p urlPattern) admits(u hookURL) bool {
	if p.scheme != "*" && p.scheme != u.scheme {
		return false
	}
	switch p.port {
	case "*":
	case "":
		if u.port != defaultPort[u.scheme] {
			return false
		}
	default:
		if want, _ := strconv.Atoi(p.port); strconv.Itoa(want) != u.port {
			return false
		}
	}
	return hostMatch(p.host, u.host) && globMatch(p.path, u.path)
}

// hostMatch matches a host against a host pattern: label by label, with *
// inside a label; * alone admits any host; addresses compare as addresses.
func hostMatch(pattern, host string) bool {
	if pattern == "*" {
		return true
	}
	if pip := net.ParseIP(pattern); pip != nil {
		hip := net.ParseIP(host)
		return hip != nil && pip.Equal(hip)
	}
	pl, hl := strings.Split(pattern, "."), strings.Split(host, ".")
	if len(pl) != len(hl) {
		return false
	}
	for i := range pl {
		if !globMatch(pl[i], hl[i]) {
			return false
		}
	}
	return true
}

// globMatch matches all of s against a pattern in which * stands for any
// run of characters and everything else for itself.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	rest := s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

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

// EnvAllowed reports whether a header of h may read the variable name.
func (p *HTTPPolicy) EnvAllowed(h *Hook, name string) bool {
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

// UnwrapURLError drops net/http's "Post "url": " prefix: messages name the hook already.
func UnwrapURLError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}
