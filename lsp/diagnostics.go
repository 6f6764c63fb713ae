package lsp

import (
	"path/filepath"
	"sort"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// documents holds the text of the settings files open in the editor, so
// diagnostics follow what the user types rather than what is saved.
type documents struct {
	mu   sync.Mutex
	open map[string][]byte // by absolute path
}

func newDocuments() *documents { return &documents{open: map[string][]byte{}} }

func (d *documents) set(path string, text []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.open[path] = text
}

func (d *documents) remove(path string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.open, path)
}

func (d *documents) get(path string) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.open[path]
	return t, ok
}

func (d *documents) texts() map[string][]byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string][]byte, len(d.open))
	for k, v := range d.open {
		out[k] = v
	}
	return out
}

// diagnosticSet remembers the configuration diagnostics last published per
// file, so a fixed file gets an empty list (which clears it in the editor)
// and ask diagnostics can be published beside them.
type diagnosticSet struct {
	mu     sync.Mutex
	config map[string][]settings.Diagnostic // by path
}

func newDiagnosticSet() *diagnosticSet {
	return &diagnosticSet{config: map[string][]settings.Diagnostic{}}
}

// replace sets the configuration diagnostics of every settings file and
// returns the files whose diagnostics must be (re)published.
func (d *diagnosticSet) replace(cfg *settings.Config) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	changed := map[string]bool{}
	for path := range d.config {
		changed[path] = true // republish, possibly empty, to clear fixed problems
	}
	next := map[string][]settings.Diagnostic{}
	for _, f := range cfg.Files {
		if len(f.Diagnostics) > 0 {
			next[f.Path] = f.Diagnostics
			changed[f.Path] = true
		}
	}
	d.config = next
	out := make([]string, 0, len(changed))
	for p := range changed {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (d *diagnosticSet) forFile(path string) []settings.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.config[path]
}

// has reports whether a published diagnostic has this code and data.
func (d *diagnosticSet) has(code, data string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, ds := range d.config {
		for _, x := range ds {
			if x.Code == code && x.Data == data {
				return true
			}
		}
	}
	return false
}

// toProtocol converts a configuration diagnostic for the wire.
func toProtocol(d settings.Diagnostic) protocol.Diagnostic {
	pd := protocol.Diagnostic{
		Range:    toRange(d.Range),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Code:     d.Code,
		Source:   "wavehooks",
		Message:  d.Message,
	}
	if d.Data != "" {
		pd.Data = d.Data
	}
	return pd
}

func toRange(r settings.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Column)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Column)},
	}
}

// publishDiagnostics sends every diagnostic the server has for one file:
// configuration problems, pending asks and failing hook test cases. An
// empty list clears the file.
func (s *Server) publishDiagnostics(u protocol.DocumentURI) {
	path, err := filePath(u)
	if err != nil {
		s.log.Warn("not publishing diagnostics", "uri", string(u), "err", err)
		return
	}
	diags := []protocol.Diagnostic{}
	for _, d := range s.diagnostics.forFile(path) {
		diags = append(diags, toProtocol(d))
	}
	diags = append(diags, s.askDiagnostics(path)...)
	diags = append(diags, s.testCaseDiagnostics(path)...)
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: diags})
}

// isSettingsFile reports whether path is one of the settings files the server reads.
func (s *Server) isSettingsFile(path string) bool {
	paths := s.engine.Config().Paths
	for _, f := range paths.SettingsFiles() {
		if filepath.Clean(f.Path) == path {
			return true
		}
	}
	// Claude Code's managed drop-ins: one added or removed changes the policy.
	if filepath.Ext(path) == ".json" && paths.IsManagedFile(path) {
		return true
	}
	// VS Code's hook files: read only when importVSCodeHooks is set, but a
	// change to one may need a reload either way.
	dir := paths.VSCodeHooksDir()
	return dir != "" && filepath.Dir(path) == dir && filepath.Ext(path) == ".json"
}
