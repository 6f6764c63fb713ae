package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
)

// filePath returns the local path a document URI names, or an error saying
// why it names none. Editors send URIs of every scheme (untitled:, git:,
// fugitive:, vscode-notebook-cell:, …) and uri.URI.Filename panics on each of
// them, so every URI from a client goes through here instead.
//
// Only file URIs with an absolute path and no host other than localhost
// name a local file (docs/protocol-limits.md).
func filePath(u protocol.DocumentURI) (string, error) {
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
	case parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost"):
		return "", fmt.Errorf("names a file on another host (%s): %q", parsed.Host, string(u))
	}
	return filepath.Clean(filepath.FromSlash(parsed.Path)), nil
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
