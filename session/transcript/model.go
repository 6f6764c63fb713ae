package transcript

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

// Block is one piece of a message. A single type for every kind keeps the
// JSON exactly as hooks and editors read it (the field names of
// docs/protocol.md) and lets a hook's jq see only the fields a kind uses.
//
// A block holds its kind and text itself and the fields only a tool call or a
// hook's context has behind a pointer, nil for every other kind: a long
// session holds hundreds of thousands of blocks, most of them text, and a
// block with every field inline was 152 bytes against 48 now
// (docs/performance.md, "100,000 small messages"). Those fields are read
// with Tool and Hook, which give the zero value for another kind, and set
// with WithTool, WithHook and SetTool, which never write through the
// pointer: copies of a block (the undo log, an editor's snapshot, a block
// list cloned for a change) share it, so it is replaced, never changed.
type Block struct {
	Type    string // "text" | "tool" | "error" | "warn" | "hook"
	Content string // text, error, warn, hook
	tool    *Tool
	hook    *Hook
}

// Tool is what a tool block holds: the call and, once it ran, its result.
type Tool struct {
	ID      string          `json:"id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Result  string          `json:"result,omitempty"`
	Success *bool           `json:"success,omitempty"` // nil while the tool has not run
	Error   string          `json:"error,omitempty"`
}

// Hook is what a hook block holds besides its text: the event whose hook
// gave the context, and what else it said about it.
type Hook struct {
	Event    string         `json:"hookEvent,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// ToolBlock returns a tool block holding t.
func ToolBlock(t Tool) Block { return Block{Type: BlockTool}.WithTool(t) }

// Tool returns the block's tool call; the zero Tool for a block that has none.
func (b Block) Tool() Tool {
	if b.tool == nil {
		return Tool{}
	}
	return *b.tool
}

// Hook returns the hook fields of a hook block; the zero Hook for a block
// that has none.
func (b Block) Hook() Hook {
	if b.hook == nil {
		return Hook{}
	}
	return *b.hook
}

// WithTool returns b holding t as its tool fields.
func (b Block) WithTool(t Tool) Block {
	b.SetTool(t)
	return b
}

// WithHook returns b holding h as its hook fields.
func (b Block) WithHook(h Hook) Block {
	if h.Event == "" && h.Metadata == nil {
		b.hook = nil
	} else {
		b.hook = &h
	}
	return b
}

// SetTool replaces the block's tool fields with t. The fields it held
// before are left as they were, for every copy of the block that shares them.
func (b *Block) SetTool(t Tool) {
	if t.isZero() {
		b.tool = nil
		return
	}
	b.tool = &t
}

// isZero reports whether t holds nothing; a block keeps no pointer to an
// empty Tool, so that blocks that read the same compare equal.
func (t *Tool) isZero() bool {
	return t.ID == "" && t.Name == "" && t.Input == nil && t.Result == "" && t.Success == nil && t.Error == ""
}

// BlockJSON is a block as the file and the wire carry it: every field of
// every kind at one level, each left out when empty. Block encodes and
// decodes as this; docs/protocol.md describes Block with its fields.
type BlockJSON struct {
	Type    string `json:"type"`
	Content string `json:"content,omitempty"`
	Tool
	Hook
}

// Block returns the block bj describes.
func (bj *BlockJSON) Block() Block {
	return Block{Type: bj.Type, Content: bj.Content}.WithTool(bj.Tool).WithHook(bj.Hook)
}

// MarshalJSON encodes the block with all its fields at one level, as
// docs/protocol.md gives them.
func (b Block) MarshalJSON() ([]byte, error) { return appendBlock(nil, &b) }

// UnmarshalJSON decodes a block encoded by MarshalJSON (or written by
// hand, with the same field names). It replaces every field of b.
func (b *Block) UnmarshalJSON(data []byte) error {
	var bj BlockJSON
	if err := json.Unmarshal(data, &bj); err != nil {
		return err
	}
	*b = bj.Block()
	return nil
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

// Seq is the number the conversation gave the message (package session
// numbers its messages so that an event finds the one it added): the file's
// encoders compare it to tell a message they already encoded from a new one
// at the same index. 0 for a message the caller built or copied (Clone).
func (m *Message) Seq() uint64 { return m.seq }

// SetSeq numbers the message; only the conversation that holds it does,
// never a caller that got a copy.
func (m *Message) SetSeq(seq uint64) { m.seq = seq }

// Reply reports whether the conversation recorded the message as the
// model's reply (session's AddAssistantMessage), which tool calls reported
// alone may join; it is not in the file or on the wire.
func (m *Message) Reply() bool { return m.reply }

// SetReply marks the message as the model's reply (see Reply).
func (m *Message) SetReply(reply bool) { m.reply = reply }

// HasResult reports whether a tool block ran (or was refused), that is,
// whether the model must be told its result: the conversation's rules and
// the file's API form both ask it.
func (b *Block) HasResult() bool {
	t := b.tool
	return t != nil && (t.Success != nil || t.Result != "" || t.Error != "")
}

// Clone copies the message's block list so that the caller may change it,
// and leaves out the seq, so that copies compare equal by content: what the
// session hands out of its conversation.
// A block's tool and hook fields are shared: they are replaced, never
// changed in place (Block.SetTool).
func (m Message) Clone() Message {
	m.Blocks, m.seq, m.reply = slices.Clone(m.Blocks), 0, false
	if m.Blocks == nil {
		m.Blocks = []Block{}
	}
	return m
}

func boolPtr(b bool) *bool { return &b }
