package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/event"
)

// handlers is every method the server answers, in one table: a reader sees
// them all here, and TestHandlerTableIsDocumented holds the wave/* ones to
// docs/protocol.md. Each is implemented in the file its comment names.
// "$/cancelRequest" and "exit" are answered by handle itself (server.go):
// they act on the connection, not on a request.
var handlers = map[string]handler{
	// handle_lifecycle.go
	"initialize":  anyState(request((*Server).initialize)),
	"initialized": notification((*Server).initialized),
	"shutdown":    request((*Server).shutdown),

	// handle_textdocument.go: the settings files the editor has open
	"textDocument/didOpen":   notification((*Server).didOpen),
	"textDocument/didChange": notification((*Server).didChange),
	"textDocument/didSave":   notification((*Server).didSave),
	"textDocument/didClose":  notification((*Server).didClose),

	// handle_hover.go, handle_completion.go, handle_codelens.go, handle_codeaction.go
	"textDocument/hover":       request((*Server).hover),
	"textDocument/completion":  request((*Server).completion),
	"textDocument/codeLens":    request((*Server).codeLens),
	"textDocument/codeAction":  request((*Server).codeAction),
	"workspace/executeCommand": request((*Server).executeCommand),

	// handle_filechanged.go, handle_laterevents.go: events the server fires itself
	protocol.MethodWorkspaceDidChangeWatchedFiles:     notification((*Server).didChangeWatchedFiles),
	protocol.MethodWorkspaceDidChangeWorkspaceFolders: notification((*Server).didChangeWorkspaceFolders),

	// progress.go
	"window/workDoneProgress/cancel": notification((*Server).cancelProgress),

	// handle_events.go: the agent's events
	methodSessionStart:     request((*Server).sessionStart),
	methodUserPromptSubmit: request((*Server).userPromptSubmit),
	methodPreToolUse:       inlineWhenNoHook(request((*Server).preToolUse), event.PreToolUse),
	methodPostToolUse:      inlineWhenNoHook(request((*Server).postToolUse), event.PostToolUse),
	methodStop:             request((*Server).stop),
	methodSessionEnd:       request((*Server).sessionEnd),

	// handle_laterevents.go, handle_runhooks.go
	methodPostToolBatch: request((*Server).postToolBatch),
	methodRunHooks:      request((*Server).runHooks),

	// handle_session.go
	methodAddAssistantMessage: request((*Server).addAssistantMessage),
	methodGetSession:          request((*Server).getSession),
	methodAPIMessages:         request((*Server).apiMessages),

	// handle_permission.go
	methodListPermissions:   request((*Server).listPermissions),
	methodResolvePermission: request((*Server).resolvePermission),

	// handle_history.go
	methodHookRuns: request((*Server).hookRuns),

	// handle_hooktoggle.go: the hooks an editor may switch off or on
	methodListHooks: request((*Server).listHooks),

	// delegate.go: the editor's late answer to wave/evaluateHook
	methodEvaluateHookResult: request((*Server).evaluateHookResult),
}

// inlineWhenNoHook marks a method whose requests fire ev and otherwise
// never wait (for the client, a process or a lock held across either): with
// no hook configured for ev they are answered on the read loop
// (Server.inlineRequest).
func inlineWhenNoHook(h handler, ev event.Event) handler {
	h.inlineEvent = ev
	return h
}

// anyState lets a method run before initialize (initialize itself).
func anyState(h handler) handler {
	h.anyState = true
	return h
}
