package acp

import (
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
)

// ACP method names the proxy acts on (internal/acpmsg/schema/v1/meta.json;
// TestMethodsInSchema holds them to it).
const (
	methodInitialize        = "initialize"
	methodSessionNew        = "session/new"
	methodSessionLoad       = "session/load"
	methodSessionResume     = "session/resume"
	methodSessionClose      = "session/close"
	methodSessionPrompt     = "session/prompt"
	methodSessionCancel     = "session/cancel"
	methodSessionSetMode    = "session/set_mode"
	methodSessionSetConfig  = "session/set_config_option"
	methodSessionUpdate     = "session/update"
	methodRequestPermission = "session/request_permission"
	methodWriteTextFile     = "fs/write_text_file"
	methodReadTextFile      = "fs/read_text_file"
	methodTerminalCreate    = "terminal/create"

	// methodSessionFork is ACP's unstable session/fork (meta.unstable.json;
	// claude-agent-acp offers it): its answer names a new session the
	// editor opened, which gets state and hooks like session/new's
	// (guardState).
	methodSessionFork = "session/fork"

	// methodHookRuns is the proxy's own extension method (ACP reserves names
	// that start with "_" for extensions): the editor, or a script, asks for
	// the hook-run history, which `wavehooks serve` offers as wave/hookRuns.
	methodHookRuns = "_wavehooks/hookRuns"
)

// acpMethod is what the proxy does with one ACP method, whichever side
// sends it: one row of methods. A nil handler means the proxy has nothing
// of its own to do there, and the message goes on as it came (an editor's
// request is still tracked, so that the agent's exit answers it).
type acpMethod struct {
	// name is the method (set from the row's key).
	name string

	// editorRequest handles the editor's request in place of forwardCall,
	// which it calls itself if the request goes to the agent.
	editorRequest func(*Proxy, *message)
	// agentResponse acts on the agent's answer to the editor's request of
	// this method and passes the answer on (or answers the editor itself).
	agentResponse func(*Proxy, *editorCall, *message)
	// agentRequest decides or passes on the agent's request to the editor.
	agentRequest func(*Proxy, *message)
	// agentNotification handles the agent's notification.
	agentNotification func(*Proxy, *message)
	// editorNotificationRead acts on the editor's notification on the
	// editor's reader as soon as it is read, before the messages queued
	// ahead of it are handled; it is then handled in order as any other.
	editorNotificationRead func(*Proxy, *message)

	// offReader reports whether the editor's request must be handled by
	// work rather than on the editor's reader (handleEditor): it may wait
	// for a hook, or read a file. nil: the reader may handle it.
	offReader func(*Proxy, *message) bool
	// refuseDeep answers the agent's request that nests too deep to read
	// (deepFromAgent) and tells the editor; nil answers it InvalidRequest.
	refuseDeep func(p *Proxy, e envelope, st *sessState)

	// opens, for a request that opens a session, is SessionStart's source
	// ("startup" or "resume").
	opens string
	// idInAnswer: the session a request opens is named in the agent's
	// answer (session/new, session/fork), not in the request.
	idInAnswer bool
	// reopens: the request opens a session the agent knows already, while
	// the agent may send requests about it (session/load, session/resume;
	// guardState).
	reopens bool
	// replays: the agent replays the session's conversation as
	// session/updates before it answers (session/load); while it does, the
	// session is loading (Proxy.loading) and the replay is not recorded.
	replays bool
}

// methods is every ACP method the proxy acts on, in one table: a reader sees
// here which handler takes each message, and the readers consult the same
// rows for what may be handled at once. Adding a method is adding its
// constant and its row (and, for a new type, internal/acpmsg). Any other
// method is passed on unchanged (an editor's request still tracked).
var methods map[string]*acpMethod

func init() {
	// Set in init, not in methods' declaration: the handlers lead back to
	// the routing that reads the table, an initialization cycle.
	// openRequest is the row of a request that opens a session.
	openRequest := func(source string, idInAnswer, reopens, replays bool) *acpMethod {
		return &acpMethod{
			editorRequest: (*Proxy).openRequest,
			agentResponse: (*Proxy).sessionOpened,
			offReader:     alwaysOffReader,
			opens:         source,
			idInAnswer:    idInAnswer,
			reopens:       reopens,
			replays:       replays,
		}
	}
	methods = map[string]*acpMethod{
		// lifecycle (route.go, sessions.go)
		methodInitialize:    {editorRequest: (*Proxy).initializeRequest, agentResponse: (*Proxy).initializeAnsweredAny}, // v2version.go
		methodSessionNew:    openRequest("startup", true, false, false),
		methodSessionFork:   openRequest("resume", true, false, false),
		methodSessionLoad:   openRequest("resume", false, true, true),
		methodSessionResume: openRequest("resume", false, true, false),
		methodSessionClose:  {editorRequest: (*Proxy).closeRequest, agentResponse: (*Proxy).closeAnswered},
		methodSessionCancel: {editorNotificationRead: (*Proxy).cancelSession},

		// prompt.go: UserPromptSubmit, Stop
		methodSessionPrompt: {
			editorRequest: (*Proxy).prompt,
			agentResponse: (*Proxy).promptAnsweredAny, // v2prompt.go: v2's answer only acknowledges
			offReader:     (*Proxy).promptMayWait,
		},

		// updates.go: tool calls and the agent's text
		methodSessionUpdate: {agentNotification: (*Proxy).sessionUpdateAny}, // v2prompt.go: v2's turn ends with a state update

		// permission.go: PreToolUse at the agent's permission request
		methodRequestPermission: {agentRequest: (*Proxy).requestPermission, refuseDeep: (*Proxy).refuseDeepPermission},

		// operations.go, permission.go: file and terminal requests judged as Write, Read and Bash
		methodWriteTextFile:  {agentRequest: (*Proxy).clientOperation},
		methodReadTextFile:   {agentRequest: (*Proxy).clientOperation},
		methodTerminalCreate: {agentRequest: (*Proxy).clientOperation},

		// hookruns.go: the proxy's own extension
		methodHookRuns: {editorRequest: (*Proxy).hookRuns},
	}
	for name, row := range methods {
		row.name = name
	}
}

// alwaysOffReader is offReader for requests never handled on the reader.
func alwaysOffReader(*Proxy, *message) bool { return true }

// methodOf is method's row, nil for a method the proxy does not act on.
func methodOf(method string) *acpMethod { return methods[method] }

// refuseDeepPermission denies a permission request nested too deep (the
// agent's reject option, as a hook's deny) and tells the editor when the
// session is known: what its hooks cannot read, they cannot allow.
func (p *Proxy) refuseDeepPermission(e envelope, st *sessState) {
	p.sendAgent(resultLine(e.id, deepPermissionAnswer(e.params)))
	if st != nil {
		reason := "a permission request was denied: its " + deepText + ", more than its hooks can read"
		p.recordNote(st, event.PreToolUse, "", "denied: the request's "+deepText)
		p.notice(st, levelWarning, reason)
	}
}

// sessionRequestOf reads the session and cwd of a request about a session
// into the call that tracks it.
func sessionRequestOf(m *message, call *editorCall) {
	var params acpmsg.SessionRequest
	_ = decode(m.Params, &params)
	call.sessionID, call.cwd = params.SessionID, params.Cwd
}

// opensSession says whether an editor's request opens a session: the hook
// bridge may edit it, reading a settings file (withBridge), so it is never
// handled on the editor's reader.
func opensSession(method string) bool {
	row := methodOf(method)
	return row != nil && row.opens != ""
}
