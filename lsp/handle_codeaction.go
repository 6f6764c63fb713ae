package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// codeAction offers the Allow/Deny answers of asks pending on the file, the
// quick fixes of its configuration diagnostics, and trusting the workspace.
func (s *Server) codeAction(_ context.Context, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	path, err := documentPath(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	actions := s.askActions(path)
	// A managed file is the administrator's: no fix or toggle edits it.
	if s.isSettingsFile(path) && !s.engine.Config().Paths.IsManagedFile(path) {
		for _, d := range s.diagnostics.forFile(path) {
			if a, ok := s.quickFix(p.TextDocument.URI, d); ok && overlaps(toRange(d.Range), p.Range) {
				actions = append(actions, a)
			}
		}
		actions = append(actions, s.toggleActions(p.TextDocument.URI, path, p.Range)...)
		if l := s.engine.Loaded(); !l.Trusted && l.NeedsTrust() {
			// The action trusts the workspace as it was offered: if it changes
			// before the click, the click does not trust the change.
			actions = append(actions, protocol.CodeAction{Title: "Trust this workspace's hooks", Kind: protocol.QuickFix,
				Command: &protocol.Command{Title: "Trust workspace hooks", Command: commandTrustWorkspace, Arguments: []any{l.Hash}}})
		}
	}
	return nonNil(actions), nil
}

// quickFix returns the fix for a diagnostic that has one.
func (s *Server) quickFix(u protocol.DocumentURI, d settings.Diagnostic) (protocol.CodeAction, bool) {
	diag := []protocol.Diagnostic{toProtocol(d)}
	edit := func(title, newText string, r settings.Range) protocol.CodeAction {
		return protocol.CodeAction{Title: title, Kind: protocol.QuickFix, Diagnostics: diag, IsPreferred: true,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{
				u: {{Range: toRange(r), NewText: newText}}}}}
	}
	switch d.Code {
	case settings.CodeUnknownEvent, settings.CodeUnknownKey:
		if d.Data != "" {
			return edit(fmt.Sprintf("Change to %q", d.Data), fmt.Sprintf("%q", d.Data), d.Range), true
		}
	case settings.CodeUnknownTool:
		if d.Data != "" {
			return edit(fmt.Sprintf("Change the matcher to %q", d.Data), fmt.Sprintf("%q", d.Data), d.Range), true
		}
	case settings.CodeBadIf:
		if d.Data != "" {
			return edit(fmt.Sprintf("Change the rule to %q", d.Data), strconv.Quote(d.Data), d.Range), true
		}
	case settings.CodeShadowed, settings.CodeIfNeverMatches:
		return s.neverRunFix(u, d, diag)
	case settings.CodeMatcherIgnored:
		return edit("Remove the matcher (this event ignores it)", `""`, d.Range), true
	case settings.CodeUnknownHookType:
		t := d.Data
		if t == "" {
			t = "command"
		}
		return edit(fmt.Sprintf("Change type to %q", t), fmt.Sprintf("%q", t), d.Range), true
	case settings.CodeMissingType:
		// The diagnostic spans the hook object; insert right after its "{".
		at := settings.Range{Start: settings.Position{Line: d.Range.Start.Line, Column: d.Range.Start.Column + 1}}
		at.End = at.Start
		return edit(`Add "type": "command"`, ` "type": "command",`, at), true
	case settings.CodeNotExecutable:
		rel, err := s.workspaceFile(d.Data)
		if err != nil {
			return protocol.CodeAction{}, false // not the server's to change
		}
		return protocol.CodeAction{Title: "Make " + rel + " executable", Kind: protocol.QuickFix, Diagnostics: diag,
			IsPreferred: true, Command: &protocol.Command{Title: "Make executable", Command: commandMakeExecutable, Arguments: []any{d.Data}}}, true
	}
	return protocol.CodeAction{}, false
}

// neverRunFix is the quick fix of a hook that can never run and whose fix
// moves or removes the whole hook: a shadowed duplicate is deleted, and a
// hook whose "if" rule its group's matcher never lets through gets a
// matcher of the rule's tool (its group's, or a new group of its own).
// The edits are made on the text as the editor has it, found again by the
// hook the diagnostic is on, so that they undo as any edit does.
func (s *Server) neverRunFix(u protocol.DocumentURI, d settings.Diagnostic, diag []protocol.Diagnostic) (protocol.CodeAction, bool) {
	path, err := documentPath(u)
	if err != nil {
		return protocol.CodeAction{}, false
	}
	text, f, ok := s.settingsBuffer(path)
	if !ok {
		return protocol.CodeAction{}, false
	}
	var h *settings.Hook
	for i := range f.Hooks {
		if r := f.Hooks[i].Place.Range; !before(d.Range.Start, r.Start) && !before(r.End, d.Range.End) {
			h = &f.Hooks[i] // the innermost: hooks come in file order
		}
	}
	if h == nil {
		return protocol.CodeAction{}, false // the buffer changed since the diagnostic
	}
	var title string
	var edits []settings.TextEdit
	switch d.Code {
	case settings.CodeShadowed:
		e, err := settings.RemoveHookEdit(text, h.Event, h.Place)
		if err != nil {
			return protocol.CodeAction{}, false
		}
		title, edits = "Remove this duplicate hook", []settings.TextEdit{e}
	case settings.CodeIfNeverMatches:
		if d.Data == "" {
			return protocol.CodeAction{}, false
		}
		if edits, err = settings.MoveHookEdits(text, h.Event, h.Place, d.Data); err != nil {
			return protocol.CodeAction{}, false
		}
		title = fmt.Sprintf("Run this hook for %s calls (matcher %q)", d.Data, d.Data)
	}
	idx := settings.NewLineIndex(text)
	changes := make([]protocol.TextEdit, 0, len(edits))
	for _, e := range edits {
		changes = append(changes, protocol.TextEdit{Range: toRange(idx.Span(e.Start, e.End)), NewText: e.Text})
	}
	return protocol.CodeAction{Title: title, Kind: protocol.QuickFix, Diagnostics: diag, IsPreferred: true,
		Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{u: changes}}}, true
}

// before reports whether position a comes before b in a file.
func before(a, b settings.Position) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
}

func overlaps(a, b protocol.Range) bool {
	before := func(x, y protocol.Position) bool {
		return x.Line < y.Line || (x.Line == y.Line && x.Character < y.Character)
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

// executeCommand runs the server's commands: answering asks, trusting the
// workspace, making a hook script executable.
func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	arg := func() (string, error) {
		if len(p.Arguments) != 1 {
			return "", badParam("arguments", "%s takes exactly one argument", p.Command)
		}
		str, ok := p.Arguments[0].(string)
		if !ok || str == "" {
			return "", badParam("arguments[0]", "must be a non-empty string")
		}
		return str, nil
	}
	switch p.Command {
	case commandAllow, commandDeny:
		id, err := arg()
		if err != nil {
			return nil, err
		}
		return &ResolvePermissionResult{Resolved: s.asks.resolve(id, p.Command == commandAllow, "code action")}, nil
	case commandTrustWorkspace:
		hash := s.engine.Loaded().Hash // without an argument: as the workspace is now
		if len(p.Arguments) > 0 {
			h, err := arg()
			if err != nil {
				return nil, err
			}
			hash = h
		}
		return nil, s.trustWorkspace(hash)
	case commandMakeExecutable:
		path, err := arg()
		if err != nil {
			return nil, err
		}
		return nil, s.makeExecutable(path)
	case commandRunHook:
		return s.runHookCommand(ctx, p.Arguments)
	case commandRunTests:
		return s.runTestsCommand(ctx, p.Arguments)
	case commandToggleHook:
		return s.toggleHookCommand(p.Arguments)
	}
	return nil, badParam("command", "unknown command %q", p.Command)
}

// makeExecutable adds the execute bits to a hook script, but only to a
// script a configuration diagnostic named, and only inside the workspace:
// a client can send this command with any path, and a repository can name
// any file (~/notes.txt) in a hook command.
func (s *Server) makeExecutable(path string) error {
	if !s.diagnostics.has(settings.CodeNotExecutable, path) {
		return badParam("arguments[0]", "%q is not a hook script flagged as not executable", path)
	}
	rel, err := s.workspaceFile(path)
	if err != nil {
		return badParam("arguments[0]", "%v", err)
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return err
	}
	defer root.Close()
	// Through the root, so that a symlink swapped in since the check
	// cannot lead the change out of the workspace.
	st, err := root.Stat(rel)
	if err != nil {
		return err
	}
	if err := root.Chmod(rel, st.Mode().Perm()|(st.Mode().Perm()&0o444)>>2); err != nil { // x wherever r
		return err
	}
	s.reloadConfig()
	return nil
}

// workspaceFile returns path relative to the workspace root if it is a
// regular file inside the root, with every symlink on the way resolved
// inside it; otherwise an error that says why not.
func (s *Server) workspaceFile(path string) (string, error) {
	rel, err := filepath.Rel(s.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is not a file inside the workspace %s", path, s.root)
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return "", err
	}
	defer root.Close()
	st, err := root.Stat(rel) // fails for a symlink that leads out of the root
	if err != nil {
		return "", fmt.Errorf("%s is not a file inside the workspace %s: %v", path, s.root, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	return rel, nil
}
