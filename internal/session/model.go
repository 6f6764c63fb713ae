package session

import (
	"encoding/json"
	"slices"
)

// Block kinds. The names are the wire contract shared with editors and with
// hooks that read the session file, so they never change.
const (
	BlockText  = "text"  // what the user or the model said
	BlockTool  = "tool"  // one tool call and, once it ran, its result
	BlockError = "error" // shown to the user only; never sent to the model
	BlockWarn  = "warn"  // a warning for the user that the model also sees
	BlockHook  = "hook"  // context a hook gave the model
)

// Message roles, as the model's API names them.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Block is one piece of a message. A single struct for every kind keeps the
// JSON exactly as hooks and editors read it (the field names of docs/protocol.md) and lets
// a hook's jq see only the fields a kind uses.
type Block struct {
	Type      string          `json:"type"`                // "text" | "tool" | "error" | "warn" | "hook"
	Content   string          `json:"content,omitempty"`   // text, error, warn, hook
	ID        string          `json:"id,omitempty"`        // tool
	Name      string          `json:"name,omitempty"`      // tool
	Input     json.RawMessage `json:"input,omitempty"`     // tool
	Result    string          `json:"result,omitempty"`    // tool
	Success   *bool           `json:"success,omitempty"`   // tool; nil while the tool has not run
	Error     string          `json:"error,omitempty"`     // tool
	HookEvent string          `json:"hookEvent,omitempty"` // hook
	Metadata  map[string]any  `json:"metadata,omitempty"`  // hook
}

// Message is one turn of the conversation. Blocks is never nil, so the file
// and the wire always carry "blocks":[] rather than null.
type Message struct {
	Role   string  `json:"role"` // "user" | "assistant"
	Blocks []Block `json:"blocks"`

	// seq identifies the message for the lifetime of the session in memory, so
	// an event can undo exactly the message it added even when other requests
	// added messages meanwhile.
	seq uint64
	// reply: addAssistantMessage recorded this message (see conversation.addTool).
	reply bool
}

// hasResult reports whether a tool block ran (or was refused), that is,
// whether the model must be told its result.
func (b *Block) hasResult() bool {
	return b.Success != nil || b.Result != "" || b.Error != ""
}

// clone copies the message's block list so that the caller may change it,
// and leaves out the seq, so that copies compare equal by content.
// Input, Success and Metadata are shared: the package never changes them in
// place, it replaces them.
func (m Message) clone() Message {
	m.Blocks, m.seq, m.reply = slices.Clone(m.Blocks), 0, false
	if m.Blocks == nil {
		m.Blocks = []Block{}
	}
	return m
}

func boolPtr(b bool) *bool { return &b }
