package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

func (s *Server) listPermissions(context.Context, *struct{}) (*ListPermissionsResult, error) {
	return &ListPermissionsResult{Pending: nonNil(s.asks.list())}, nil
}

func (s *Server) resolvePermission(_ context.Context, p *ResolvePermissionParams) (*ResolvePermissionResult, error) {
	if p.ID == "" {
		return nil, badParam("id", "is required")
	}
	var allow bool
	switch p.Decision {
	case "allow":
		allow = true
	case "deny":
	default:
		return nil, badParam("decision", `must be "allow" or "deny", not %q`, p.Decision)
	}
	return &ResolvePermissionResult{Resolved: s.asks.resolve(p.ID, allow, "wave/resolvePermission")}, nil
}

// askActions are the Allow/Deny code actions of the asks pending on a file.
func (s *Server) askActions(path string) []protocol.CodeAction {
	var out []protocol.CodeAction
	for _, a := range s.asks.onFile(path) {
		out = append(out,
			protocol.CodeAction{Title: titleAllow + " " + a.ToolName, Kind: protocol.QuickFix, IsPreferred: false,
				Command: &protocol.Command{Title: titleAllow, Command: commandAllow, Arguments: []any{a.ID}}},
			protocol.CodeAction{Title: titleDeny + " " + a.ToolName, Kind: protocol.QuickFix,
				Command: &protocol.Command{Title: titleDeny, Command: commandDeny, Arguments: []any{a.ID}}})
	}
	return out
}

// askDiagnostics are the diagnostics that show the asks pending on a file.
func (s *Server) askDiagnostics(path string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, a := range s.asks.onFile(path) {
		msg := "A hook asks before " + a.ToolName + " changes this file"
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		out = append(out, protocol.Diagnostic{Severity: protocol.DiagnosticSeverityWarning, Source: "wavehooks",
			Code: "wave.ask", Message: msg + " (code actions: Allow / Deny)", Data: AskDiagnosticData{PermissionID: a.ID}})
	}
	return out
}
