package acpmsg

import "encoding/json"

// ACP v2 (draft). The types below are written from the v2 draft schema,
// vendored unchanged in schema/v2 with its release in schema/v2/version
// (2.0.0-alpha.3, the newest v2 release at agentclientprotocol/
// agent-client-protocol when this was written), and
// TestV2FieldsInSchema holds their JSON names to it as TestFieldsInSchema
// holds msg.go's to v1. Only what differs between the versions at the
// points where the proxy decides is typed here: the version negotiated at
// initialize, the end of a turn (a state update instead of the prompt's
// answer), and a permission request's title and subject. The rest of the
// proxy's types serve both versions where their members are the same
// (session/new's sessionId, session/prompt's blocks, tool call updates).

// Protocol versions the proxy knows (schema: ProtocolVersion, an integer).
const (
	ProtocolV1 = 1
	ProtocolV2 = 2
)

// SchemaV2Release is the v2 draft the proxy's v2 support is written and
// tested against (schema/v2/version).
const SchemaV2Release = "2.0.0-alpha.3"

// VersionHead is the part of initialize's params and result the proxy
// reads in either version (schema: InitializeRequest, InitializeResponse):
// the protocol version each side names. It stays raw, so that a version
// that is not a number is seen as such.
type VersionHead struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion"`
}

// InitializeResponseV2 is the part of a v2 agent's initialize result the
// proxy reads (schema: InitializeResponse): v2 names the agent in "info"
// where v1 has "agentInfo".
type InitializeResponseV2 struct {
	Info Implementation `json:"info"`
}

// UpdateStateUpdate is the v2 session update that reports a session's
// foreground state (schema: SessionUpdate "state_update"); an "idle" one
// with a stop reason ends a turn, as v1's session/prompt answer does.
const UpdateStateUpdate = "state_update"

// States of a v2 state update (schema: StateUpdate).
const (
	StateIdle    = "idle"
	StateRunning = "running"
)

// StateUpdateNotification is a session/update of kind state_update as the
// proxy reads it (schema: UpdateSessionNotification).
type StateUpdateNotification struct {
	SessionID string      `json:"sessionId"`
	Update    StateUpdate `json:"update"`
}

// StateUpdate is a v2 state update (schema: StateUpdate, IdleStateUpdate,
// SessionUpdate "state_update"): the proxy reads it at the end of a turn
// and sends one to end a turn it answers itself (a blocked prompt).
type StateUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	State         string `json:"state"`
	StopReason    string `json:"stopReason,omitempty"`
}

func (StateUpdate) sessionUpdate() {}

// PromptAck is a v2 agent's answer to session/prompt (schema:
// PromptResponse): an empty object that says the prompt was accepted, not
// that the turn ended.
type PromptAck struct{}

// RequestPermissionRequestV2 is a v2 session/request_permission's params
// (schema: RequestPermissionRequest): the prompt's own title and an
// optional subject take the place of v1's toolCall.
type RequestPermissionRequestV2 struct {
	Meta      *Meta              `json:"_meta,omitempty"`
	Options   []PermissionOption `json:"options"`
	SessionID string             `json:"sessionId"`
	Subject   *PermissionSubject `json:"subject,omitempty"`
	Title     string             `json:"title"`
}

// PermissionSubject is what a v2 permission request is about (schema:
// RequestPermissionSubject, ToolCallPermissionSubject,
// CommandPermissionSubject): a tool call ("tool_call", with the call's
// state) or a command the agent runs itself ("command", with its cwd and
// the tool call it belongs to, if any). Other types are read as far as Type.
type PermissionSubject struct {
	Command    string          `json:"command,omitempty"`
	Cwd        string          `json:"cwd,omitempty"`
	ToolCall   *ToolCallUpdate `json:"toolCall,omitempty"`
	ToolCallID *string         `json:"toolCallId,omitempty"`
	Type       string          `json:"type"`
}

// Kinds of a v2 permission subject (schema: RequestPermissionSubject).
const (
	SubjectToolCall = "tool_call"
	SubjectCommand  = "command"
)

// ConfigOptionV2 is the part of a v2 session config option the proxy reads
// to show a v1 editor the option of category "mode" as v1's session modes
// (schema: SessionConfigOption, SessionConfigSelect): v2 dropped session
// modes for config options, and v1 editors still pick a mode with
// session/set_mode.
type ConfigOptionV2 struct {
	Category     string          `json:"category"`
	ConfigID     string          `json:"configId"`
	CurrentValue json.RawMessage `json:"currentValue"`
	Name         string          `json:"name"`
	Options      json.RawMessage `json:"options"`
}

// ConfigCategoryMode is the config option category v2 gives what v1 called
// the session mode (schema: SessionConfigOptionCategory).
const ConfigCategoryMode = "mode"

// ConfigSelectChoice is one value of a select config option, or a group of
// them (schema: SessionConfigSelectOption, SessionConfigSelectGroup).
type ConfigSelectChoice struct {
	Name    string               `json:"name"`
	Options []ConfigSelectChoice `json:"options"`
	Value   json.RawMessage      `json:"value"`
}

// PlanUpdateV2 is a v2 plan_update's plan (schema: PlanUpdate,
// PlanUpdateContent, PlanItems): of its kinds only "items" has v1's shape
// (a list of entries); "file" and "markdown" have none.
type PlanUpdateV2 struct {
	Plan struct {
		Entries json.RawMessage `json:"entries"`
		Type    string          `json:"type"`
	} `json:"plan"`
}

// MessageV2 is a v2 whole-message update, user_message, agent_message or
// agent_thought (schema: AgentMessage, UserMessage, AgentThought): every
// block of the message so far, where v1 streams chunks.
type MessageV2 struct {
	Content   []json.RawMessage `json:"content"`
	MessageID string            `json:"messageId"`
}

// ToolCallContentChunkV2 is one more piece of a tool call's content
// (schema: ToolCallContentChunk), where v1 sends the whole content in a
// tool_call_update.
type ToolCallContentChunkV2 struct {
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"toolCallId"`
}

// DiffV2 is v2's diff content of a tool call (schema: Diff, DiffPatch,
// DiffChange): the changed paths and, optionally, a patch, where v1 gives
// one file's old and new text.
type DiffV2 struct {
	Changes []struct {
		OldPath   string `json:"oldPath"`
		Operation string `json:"operation"`
		Path      string `json:"path"`
	} `json:"changes"`
	Patch *struct {
		Format string `json:"format"`
		Text   string `json:"text"`
	} `json:"patch"`
}

// Session updates of v2 that v1 does not have (schema: SessionUpdate).
const (
	UpdateUserMessage          = "user_message"
	UpdateAgentMessage         = "agent_message"
	UpdateAgentThought         = "agent_thought"
	UpdateToolCallContentChunk = "tool_call_content_chunk"
	UpdatePlanUpdate           = "plan_update"
	UpdateTerminalUpdate       = "terminal_update"
	UpdateTerminalOutputChunk  = "terminal_output_chunk"
	UpdateConfigOptionUpdate   = "config_option_update"
)
