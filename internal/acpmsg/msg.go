// Package acpmsg holds a Go type for every message the ACP proxy
// (acp) creates or decodes, so that what it sends is checked by the
// compiler and what it reads is named, instead of map literals and
// ad-hoc structs at each site.
//
// The types are written from ACP's published JSON schema, protocol version
// 1, vendored in schema/v1 with its release in schema/v1/version (the v2
// draft beside it, in schema/v2). Each type names its schema definition
// ("(schema: X)"), and TestFieldsInSchema holds every field's JSON name to
// that definition. The types are not taken from
// github.com/coder/acp-go-sdk: the proxy passes every message it does not
// decide on byte for byte, and where it edits one it keeps every member it
// does not know. The SDK's types are closed structs decoded with
// encoding/json: unknown members are dropped, rawInput, rawOutput and _meta
// are `any` (a 20-digit number in a tool input comes back rounded through a float), and
// its unions (session updates, content blocks, permission outcomes) decode
// each message two or three times and encode through map[string]any. The
// README ("Architecture") says so too.
//
// So these types hold only the members the proxy reads or writes; a
// message it edits is read into an Object (every member's bytes as they
// came) and only the members it changes are replaced. json.RawMessage marks
// what the proxy passes on without reading (a prompt's blocks, a tool's
// input).
//
// The fields of a type the proxy encodes are declared in the order of their
// JSON names: that is the order encoding/json gave the map literals these
// types replaced, so the bytes on the wire did not change, and
// acp/testdata/golden holds them. A type keeps the order its
// struct had before where it had one (PermissionOption).
//
// To add a message: add its type here with the schema definition it
// follows ("(schema: X)") and the members the proxy uses, fields in
// JSON-name order; a member that is wavehooks' own goes in
// schema_test.go's extensionFields with its reason.
package acpmsg

import "encoding/json"

// JSONRPCVersion is the "jsonrpc" member of every message.
const JSONRPCVersion = "2.0"

// Request is a request the proxy sends (ID set) or a notification (ID nil):
// the JSON-RPC envelope around one of this package's params types.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params"` // one of this package's types, or an Object the proxy edited
}

// Response answers a request: Result (already encoded) or Error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// RawErrorResponse answers a request with an error object a peer sent,
// passed on unchanged (the agent's error to a follow-up prompt becomes the
// editor's answer).
type RawErrorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   json.RawMessage `json:"error"`
}

// Error is JSON-RPC's error object (schema: Error), as the proxy sends it
// and reads a peer's. Code is one of internal/rpcerr's; Data, when set, is
// an encoded Meta. Data stays raw when read: a peer's data can be anything,
// and the proxy reads only the message.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Meta is an ACP "_meta" object as far as the proxy reads or writes it:
// claude-agent-acp's claudeCode.toolName on a tool call, and the proxy's own
// wavehooks member on what it sends, which tells an editor or a script that
// a message comes from a hook.
type Meta struct {
	ClaudeCode *ClaudeCodeMeta `json:"claudeCode,omitempty"`
	Wavehooks  *WavehooksMeta  `json:"wavehooks,omitempty"`
}

// ClaudeCodeMeta is claude-agent-acp's _meta.claudeCode on a tool call:
// the name of Claude Code's own tool, which hooks written for Claude Code
// match on.
type ClaudeCodeMeta struct {
	ToolName string `json:"toolName"`
}

// WavehooksMeta is _meta.wavehooks on a message the proxy makes (docs/acp.md):
// the hook event it comes from, the level of a hook message, whether it is a
// notice of the proxy's own, and for a deny the decision and the tool.
type WavehooksMeta struct {
	Decision  string `json:"decision,omitempty"`
	HookEvent string `json:"hookEvent,omitempty"`
	Level     string `json:"level,omitempty"`
	Notice    bool   `json:"notice,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Trust     bool   `json:"trust,omitempty"` // the proxy's question to trust a project's hooks
}

// Object is a JSON object the proxy edits: every member's bytes as they
// came, so that the members it does not change — unknown ones and _meta
// included — go out as they were. Values the proxy puts in are encoded
// from this package's types. (Encoded, its members are sorted by name, as
// encoding/json sorts a map's keys.)
type Object map[string]json.RawMessage

// SetSessionModeRequest is a v1 editor's session/set_mode (schema:
// SetSessionModeRequest), which the proxy turns into v2's
// session/set_config_option for an agent that speaks only v2.
type SetSessionModeRequest struct {
	ModeID    string `json:"modeId"`
	SessionID string `json:"sessionId"`
}

// PromptCapabilities is what a v1 agent says its prompts may hold besides
// text (schema: PromptCapabilities); the proxy writes it for a v2-only
// agent, whose capabilities say it in v2's shape.
type PromptCapabilities struct {
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
	Image           bool `json:"image"`
}

// McpCapabilities is which MCP transports a v1 agent takes besides stdio
// (schema: McpCapabilities); written for a v2-only agent as
// PromptCapabilities is. v2 has no SSE.
type McpCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// SessionModeState is a v1 session's modes (schema: SessionModeState),
// which the proxy makes for a v1 editor from a v2 agent's config option of
// category "mode".
type SessionModeState struct {
	AvailableModes []SessionMode   `json:"availableModes"`
	CurrentModeID  json.RawMessage `json:"currentModeId"`
}

// SessionMode is one v1 session mode (schema: SessionMode).
type SessionMode struct {
	ID   json.RawMessage `json:"id"`
	Name string          `json:"name"`
}

// SessionRequest is the part of session/new, session/load, session/resume
// and session/close params the proxy reads (schema: NewSessionRequest,
// LoadSessionRequest, ResumeSessionRequest, CloseSessionRequest): the
// session and the working directory that picks the project's hooks.
type SessionRequest struct {
	Cwd       string `json:"cwd"`
	SessionID string `json:"sessionId"`
}

// NewSessionResponse is the part of session/new's result the proxy reads
// (schema: NewSessionResponse): the id of the session it starts.
type NewSessionResponse struct {
	SessionID string `json:"sessionId"`
}

// InitializeResponse is the part of initialize's result the proxy reads
// (schema: InitializeResponse): which agent it is, to know whether it runs
// Claude Code's hooks itself and needs the hook bridge.
type InitializeResponse struct {
	AgentInfo Implementation `json:"agentInfo"`
}

// Implementation names an agent or a client (schema: Implementation).
type Implementation struct {
	Name string `json:"name"`
}

// CancelNotification is session/cancel's params (schema:
// CancelNotification): the editor's stop button, which the proxy also sends
// the agent to carry out a hook's continue:false.
type CancelNotification struct {
	SessionID string `json:"sessionId"`
}

// PromptRequest is session/prompt's params (schema: PromptRequest): the
// editor's, which UserPromptSubmit hooks read, and the proxy's own
// follow-up prompt after a Stop hook's block. The blocks stay raw: images,
// audio and resources pass as they came.
type PromptRequest struct {
	Prompt    []json.RawMessage `json:"prompt"`
	SessionID string            `json:"sessionId"`
}

// PromptResponse is session/prompt's result (schema: PromptResponse): the
// agent's, which decides whether Stop hooks run, and the proxy's own answer
// to a prompt a hook blocked or the editor cancelled.
type PromptResponse struct {
	StopReason string `json:"stopReason"`
}

// Stop reasons of a PromptResponse the proxy reads or sends (schema: StopReason).
const (
	StopEndTurn   = "end_turn"
	StopCancelled = "cancelled"
	StopRefusal   = "refusal"
)

// ContentBlock is a text content block (schema: ContentBlock, "text"): the
// text of a prompt or of a streamed chunk, which hooks read, and the text
// blocks the proxy adds. Other kinds of block are read as far as Type.
type ContentBlock struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// NewText is a text content block: the one way the proxy makes one, so
// its type is never misspelt.
func NewText(text string) ContentBlock { return ContentBlock{Text: text, Type: "text"} }

// SessionUpdateHead is the part of a session/update every kind of update
// shares (schema: SessionNotification, SessionUpdate), read in one pass on
// the hot path of streamed text: the kind, and a chunk's content and messageId.
type SessionUpdateHead struct {
	SessionID string     `json:"sessionId"`
	Update    UpdateHead `json:"update"`
}

// UpdateHead is SessionUpdateHead's update (schema: SessionUpdate
// "agent_message_chunk" / "user_message_chunk" / "agent_thought_chunk").
type UpdateHead struct {
	Content       json.RawMessage `json:"content"`
	MessageID     *string         `json:"messageId"` // schema: ContentChunk.messageId (stable since schema 1.21.0 at the latest)
	SessionUpdate string          `json:"sessionUpdate"`
}

// Kinds of session update the proxy reads or sends (schema: SessionUpdate's discriminator).
const (
	UpdateAgentMessageChunk = "agent_message_chunk"
	UpdateToolCall          = "tool_call"
	UpdateToolCallUpdate    = "tool_call_update"
)

// ToolCallNotification is a session/update of kind tool_call or
// tool_call_update as the proxy reads it.
type ToolCallNotification struct {
	Update ToolCallUpdate `json:"update"`
}

// SessionNotification is a session/update the proxy sends the editor
// (schema: SessionNotification).
type SessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
}

// SessionUpdate is an update the proxy sends: AgentMessageChunk or
// ToolCallNotice. The method keeps it to this package's types.
type SessionUpdate interface{ sessionUpdate() }

// AgentMessageChunk is a hook message or a notice of the proxy's own, shown
// as part of the agent's reply (schema: SessionUpdate "agent_message_chunk"):
// ACP has no other channel to the user's eyes. SessionUpdate is
// UpdateAgentMessageChunk.
type AgentMessageChunk struct {
	Meta          *Meta        `json:"_meta,omitempty"`
	Content       ContentBlock `json:"content"`
	MessageID     string       `json:"messageId,omitempty"` // required on v2, where the proxy sets one (acp's messageID)
	SessionUpdate string       `json:"sessionUpdate"`
}

func (AgentMessageChunk) sessionUpdate() {}

// ToolCallNotice is a tool call the proxy decided on, shown to the editor
// (schema: SessionUpdate "tool_call" / "tool_call_update"): a new call
// (UpdateToolCall, with its title) when the editor never saw it, else an
// update of it.
type ToolCallNotice struct {
	Meta          *Meta              `json:"_meta,omitempty"`
	Content       []ToolCallContent  `json:"content,omitempty"`
	Kind          string             `json:"kind,omitempty"`
	Locations     []ToolCallLocation `json:"locations,omitempty"`
	SessionUpdate string             `json:"sessionUpdate"`
	Status        string             `json:"status,omitempty"`
	Title         *string            `json:"title,omitempty"` // a new call's, even ""
	ToolCallID    string             `json:"toolCallId"`
}

func (ToolCallNotice) sessionUpdate() {}

// ToolCallUpdate is ACP's ToolCall / ToolCallUpdate (schema: ToolCallUpdate)
// as the proxy reads it from a session/update or a permission request, and
// the tool call of its own permission request: every field but the id is
// optional in an update, and a present one replaces what an earlier
// message said, so presence is kept (pointers). Content stays raw: its
// kinds are read as ToolCallContent or Diff.
type ToolCallUpdate struct {
	Meta       *Meta              `json:"_meta,omitempty"`
	Content    []json.RawMessage  `json:"content,omitempty"`
	Kind       *string            `json:"kind,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
	Status     *string            `json:"status,omitempty"`
	Title      *string            `json:"title,omitempty"`
	ToolCallID string             `json:"toolCallId"`
}

// ToolCallLocation is a file a tool call works on (schema: ToolCallLocation).
type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// ToolCallContent is a tool call's "content" item holding a content block
// (schema: ToolCallContent "content"): a failed tool's text, which
// PostToolUseFailure hooks read, and the reason of a deny the proxy shows.
type ToolCallContent struct {
	Content ContentBlock `json:"content"`
	Type    string       `json:"type"`
}

// Diff is a tool call's "diff" item (schema: ToolCallContent "diff"): an
// edit's path and texts, which the proxy turns into a Write or Edit input.
type Diff struct {
	NewText string  `json:"newText"`
	OldText *string `json:"oldText"`
	Path    string  `json:"path"`
	Type    string  `json:"type"`
}

// RequestPermissionRequest is session/request_permission's params (schema:
// RequestPermissionRequest): the agent's, where PreToolUse hooks decide,
// and the proxy's own, which puts a hook's ask about a file or terminal
// request to the user.
type RequestPermissionRequest struct {
	Meta      *Meta              `json:"_meta,omitempty"` // the proxy's own questions say so (the trust question)
	Options   []PermissionOption `json:"options"`
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
}

// PermissionOption is one choice of a permission request (schema:
// PermissionOption): the proxy answers with the agent's own option ids,
// picked by kind.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// RequestPermissionResponse is session/request_permission's result (schema:
// RequestPermissionResponse): the proxy's answer for a hook's decision, and
// the editor's answer, whose choice is recorded.
type RequestPermissionResponse struct {
	Outcome RequestPermissionOutcome `json:"outcome"`
}

// RequestPermissionOutcome is the option selected, or "cancelled" (schema:
// RequestPermissionOutcome).
type RequestPermissionOutcome struct {
	OptionID string `json:"optionId,omitempty"`
	Outcome  string `json:"outcome"`
}

// Outcomes of a permission request.
const (
	OutcomeSelected  = "selected"
	OutcomeCancelled = "cancelled"
)

// Selected answers a permission request with one of its options.
func Selected(optionID string) RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: RequestPermissionOutcome{OptionID: optionID, Outcome: OutcomeSelected}}
}

// Cancelled answers a permission request "cancelled".
func Cancelled() RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: RequestPermissionOutcome{Outcome: OutcomeCancelled}}
}

// WriteTextFileRequest is fs/write_text_file's params (schema:
// WriteTextFileRequest), which PreToolUse hooks judge as a Write.
type WriteTextFileRequest struct {
	Content   string `json:"content"`
	Path      string `json:"path"`
	SessionID string `json:"sessionId"`
}

// ReadTextFileRequest is fs/read_text_file's params (schema:
// ReadTextFileRequest), which PreToolUse hooks judge as a Read. Line and
// Limit stay raw: hooks see the numbers as they came.
type ReadTextFileRequest struct {
	Limit     json.RawMessage `json:"limit"`
	Line      json.RawMessage `json:"line"`
	Path      string          `json:"path"`
	SessionID string          `json:"sessionId"`
}

// CreateTerminalRequest is terminal/create's params (schema:
// CreateTerminalRequest), which PreToolUse hooks judge as a Bash command.
// Env stays raw: the environment is part of what the command does, and
// hooks see ACP's list as it came.
type CreateTerminalRequest struct {
	Args      []string        `json:"args"`
	Command   string          `json:"command"`
	Cwd       string          `json:"cwd"`
	Env       json.RawMessage `json:"env"`
	SessionID string          `json:"sessionId"`
}

// EnvVariable is one variable of a terminal's environment (schema:
// EnvVariable), as a hook's updatedInput sets it.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// WriteInput is the tool_input hooks read for fs/write_text_file: Claude
// Code's Write tool's, so that matchers and hooks written for it apply.
type WriteInput struct {
	Content  string `json:"content"`
	FilePath string `json:"file_path"`
}

// ReadInput is the tool_input hooks read for fs/read_text_file: Claude
// Code's Read tool's (offset is ACP's line).
type ReadInput struct {
	FilePath string          `json:"file_path"`
	Limit    json.RawMessage `json:"limit,omitempty"`
	Offset   json.RawMessage `json:"offset,omitempty"`
}

// BashInput is the tool_input hooks read for terminal/create: Claude Code's
// Bash tool's command line, with the request's cwd and env.
type BashInput struct {
	Command string          `json:"command"`
	Cwd     string          `json:"cwd,omitempty"`
	Env     json.RawMessage `json:"env,omitempty"`
}

// UpdatedBashInput is a PreToolUse hook's updatedInput for a terminal/create
// (a Bash tool input), as the proxy writes it back into the request: a
// member present replaces the request's, so presence is kept (pointers);
// "args" is the proxy's own addition, to set a program and its arguments.
type UpdatedBashInput struct {
	Args    *[]string             `json:"args"`
	Command *string               `json:"command"`
	Cwd     *string               `json:"cwd"`
	Env     *[]UpdatedEnvVariable `json:"env"`
}

// UpdatedEnvVariable is one variable of an UpdatedBashInput's env, with
// presence kept so that a missing name or value is refused, not taken as "".
type UpdatedEnvVariable struct {
	Name  *string `json:"name"`
	Value *string `json:"value"`
}

// HookRunsRequest is the params of _wavehooks/hookRuns, the proxy's own
// extension method (ACP reserves "_" names for them): which runs of the
// hook-run history the editor asks for, as `wavehooks serve`'s wave/hookRuns.
type HookRunsRequest struct {
	Event     string `json:"event"`
	Limit     int    `json:"limit"`
	SessionID string `json:"sessionId"`
}

// HookRunsResponse is _wavehooks/hookRuns's result. The run type is a
// parameter so that this package depends on nothing of wavehooks'.
type HookRunsResponse[Run any] struct {
	Runs []Run `json:"runs"`
}

// BridgeInput is the part of Claude Code's hook input the hook bridge reads
// (claude-agent-acp's Claude Code runs `wavehooks acp-hook`, which hands its
// stdin to the proxy): which tool call of which session to judge.
type BridgeInput struct {
	Event     string          `json:"hook_event_name"`
	SessionID string          `json:"session_id"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	// AgentID and AgentType name the subagent that makes the call (agent_id,
	// agent_type, which Claude Code and Codex send from inside a subagent;
	// Claude Code sends agent_type alone for a session started with --agent).
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// BridgeAnswer is the hook bridge's answer, Claude Code's PreToolUse hook
// JSON: the decision in HookSpecificOutput, and continue:false with its
// stopReason when a hook stopped the turn.
type BridgeAnswer struct {
	Continue           *bool            `json:"continue,omitempty"`
	HookSpecificOutput PreToolUseOutput `json:"hookSpecificOutput"`
	StopReason         *string          `json:"stopReason,omitempty"` // with Continue, even ""
}

// PreToolUseOutput is Claude Code's hookSpecificOutput for PreToolUse. A
// pointer is a member sent even when empty (an ask's reason, joined context).
type PreToolUseOutput struct {
	AdditionalContext        *string         `json:"additionalContext,omitempty"`
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason *string         `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
}

// ClaudeHookMatcher is one matcher group of Claude Code's settings
// ("hooks": {"PreToolUse": [...]}): the hook bridge adds one to a
// session's settings.
type ClaudeHookMatcher struct {
	Hooks   []ClaudeCommandHook `json:"hooks"`
	Matcher string              `json:"matcher"`
}

// ClaudeCommandHook is a command hook of Claude Code's settings; Timeout is in seconds.
type ClaudeCommandHook struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
	Type    string `json:"type"`
}

// ClaudeHTTPHookMatcher is one PreToolUse entry of Claude Code's settings
// with an http hook: the hook bridge's, when Claude Code sends hooks over
// http and fails closed (acp/agents/claude.go).
type ClaudeHTTPHookMatcher struct {
	Hooks   []ClaudeHTTPHook `json:"hooks"`
	Matcher string           `json:"matcher"`
}

// ClaudeHTTPHook is an http hook of Claude Code's settings: it POSTs the
// hook's input to URL with Headers, whose $VAR references Claude Code fills
// from its environment for the names in AllowedEnvVars; OnFailure "block"
// makes a failed call (no answer, a refused request) block the tool.
// Timeout is in seconds.
type ClaudeHTTPHook struct {
	AllowedEnvVars []string          `json:"allowedEnvVars"`
	Headers        map[string]string `json:"headers"`
	OnFailure      string            `json:"onFailure"`
	Timeout        int               `json:"timeout"`
	Type           string            `json:"type"`
	URL            string            `json:"url"`
}
