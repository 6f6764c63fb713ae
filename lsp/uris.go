package lsp

import (
	"fmt"
	"net/url"
	"path"
	"runtime"
	"strings"

	"go.lsp.dev/protocol"
)

// filePath returns the local path a document URI names, or an error saying
// why it names none. Editors send URIs of every scheme (untitled:, git:,
// fugitive:, vscode-notebook-cell:, …) and uri.URI.Filename panics on each of
// them, so every URI from a client goes through here instead.
//
// Only file URIs with an absolute path and no host other than localhost
// name a local file (docs/protocol-limits.md). On Windows a URI's path
// starts with its drive, spelled /C:/x or (VS Code) /c%3A/x, and a host
// names a UNC share: file://server/share/x is \\server\share\x.
func filePath(u protocol.DocumentURI) (string, error) {
	return filePathOn(runtime.GOOS, u)
}

// filePathOn is filePath for the given GOOS, so that the Windows reading is
// tested on every system (paths are built by hand, with path and
// backslashes: filepath follows the running system).
func filePathOn(goos string, u protocol.DocumentURI) (string, error) {
	parsed, err := url.Parse(string(u))
	switch {
	case err != nil:
		return "", fmt.Errorf("is not a valid URI: %q", string(u))
	case parsed.Scheme != "file":
		scheme := parsed.Scheme
		if scheme == "" {
			scheme = "none"
		}
		return "", fmt.Errorf("is not a file URI (scheme %s): %q; only file: documents are served", scheme, string(u))
	case parsed.Opaque != "", !strings.HasPrefix(parsed.Path, "/"):
		return "", fmt.Errorf("is not a file URI with an absolute path: %q", string(u))
	case goos == "windows":
		return windowsPath(parsed, u)
	case parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost"):
		return "", fmt.Errorf("names a file on another host (%s): %q", parsed.Host, string(u))
	}
	return path.Clean(parsed.Path), nil // a Unix path: slashes are its separators
}

// windowsPath is the Windows path of a parsed file URI: a drive path
// (/C:/x or /c:/x, both C:\x: the letter upper-cased as Windows itself spells
// a working directory, so that serve and `wavehooks run` name one workspace
// alike to the trust store) or a UNC path (//server/share/x);
// anything else, such as /Users/x with no drive, names no file Windows can
// open unambiguously and is refused as not absolute.
func windowsPath(parsed *url.URL, u protocol.DocumentURI) (string, error) {
	p := parsed.Path
	if parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost") {
		rest := strings.Trim(p, "/")
		if rest == "" {
			return "", fmt.Errorf("names a UNC host (%s) with no share: %q", parsed.Host, string(u))
		}
		return windowsClean(`\\` + parsed.Host + `\` + strings.ReplaceAll(rest, "/", `\`)), nil
	}
	if len(p) < 3 || !isDriveLetter(p[1]) || p[2] != ':' || (len(p) > 3 && p[3] != '/') {
		return "", fmt.Errorf("is not a file URI with an absolute path (no drive letter): %q", string(u))
	}
	rest := strings.ReplaceAll(p[3:], "/", `\`)
	if rest == "" {
		rest = `\`
	}
	return windowsClean(strings.ToUpper(p[1:2]) + ":" + rest), nil
}

// windowsClean removes empty, . and .. elements of a Windows path whose root
// (C:\ or \\server\share\) it never climbs above, as filepath.Clean does on
// Windows.
func windowsClean(p string) string {
	root, rest := p[:3], p[3:] // C:\
	if strings.HasPrefix(p, `\\`) {
		parts := strings.SplitN(p[2:], `\`, 3)
		root = `\\` + parts[0] + `\` + parts[1] + `\`
		rest = ""
		if len(parts) == 3 {
			rest = parts[2]
		}
	}
	var kept []string
	for _, e := range strings.Split(rest, `\`) {
		switch e {
		case "", ".":
		case "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			}
		default:
			kept = append(kept, e)
		}
	}
	return root + strings.Join(kept, `\`)
}

// isDriveLetter reports whether c is an ASCII letter, what a drive is named.
func isDriveLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// documentPath is filePath for a request's textDocument.uri: a URI that
// names no local file is the client's mistake, answered InvalidParams.
func documentPath(u protocol.DocumentURI) (string, error) {
	path, err := filePath(u)
	if err != nil {
		return "", badParam("textDocument.uri", "%v", err)
	}
	return path, nil
}
