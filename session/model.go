package session

import (
	"errors"

	"github.com/wavehooks/wavehooks/session/transcript"
)

// The conversation's model lives with the files that hold it, in package
// transcript, so that storage never imports this package; these names keep
// it where every user of a session finds it (lsp, acp,
// internal/host, cmd). They are aliases: a session.Message is a
// transcript.Message.

// Block kinds. The names are the wire contract shared with editors and with
// hooks that read the session file, so they never change.
const (
	BlockText  = transcript.BlockText  // what the user or the model said
	BlockTool  = transcript.BlockTool  // one tool call and, once it ran, its result
	BlockError = transcript.BlockError // shown to the user only; never sent to the model
	BlockWarn  = transcript.BlockWarn  // a warning for the user that the model also sees
	BlockHook  = transcript.BlockHook  // context a hook gave the model
)

// Message roles, as the model's API names them.
const (
	RoleUser      = transcript.RoleUser
	RoleAssistant = transcript.RoleAssistant
)

type (
	// Message is one turn of the conversation (transcript.Message).
	Message = transcript.Message
	// Block is one piece of a message (transcript.Block).
	Block = transcript.Block
	// Tool is what a tool block holds (transcript.Tool).
	Tool = transcript.Tool
	// Hook is what a hook block holds besides its text (transcript.Hook).
	Hook = transcript.Hook
	// BlockJSON is a block as the file and the wire carry it (transcript.BlockJSON).
	BlockJSON = transcript.BlockJSON
	// APIMessage is a message as the model's API takes it (transcript.APIMessage).
	APIMessage = transcript.APIMessage
	// APIBlock is one content block of an APIMessage (transcript.APIBlock).
	APIBlock = transcript.APIBlock
	// Format is how a session file is written (transcript.Format).
	Format = transcript.Format
)

// The session file formats (transcript.FormatJSON, transcript.FormatJSONL).
const (
	FormatJSON  = transcript.FormatJSON
	FormatJSONL = transcript.FormatJSONL
)

// MaxSessionFileBytes caps a session file the server reads
// (transcript.MaxSessionFileBytes).
const MaxSessionFileBytes = transcript.MaxSessionFileBytes

// ToolBlock returns a tool block holding t.
func ToolBlock(t Tool) Block { return transcript.ToolBlock(t) }

// ToAPI converts messages to what the model must see (transcript.ToAPI).
func ToAPI(msgs []Message) []APIMessage { return transcript.ToAPI(msgs) }

// FromAPI rebuilds messages from API messages, a jsonl transcript
// (transcript.FromAPI).
func FromAPI(api []APIMessage) []Message { return transcript.FromAPI(api) }

// ValidateID checks a session id before it can become part of a path
// (transcript.ValidateID).
func ValidateID(id string) error { return transcript.ValidateID(id) }

// NewID returns a random UUID, the id a session gets when the client names
// none (transcript.NewID).
func NewID() string { return transcript.NewID() }

// Errors the server maps to JSON-RPC errors.
var (
	// ErrInvalidID: a session id from a client is not [A-Za-z0-9_-]{1,128}
	// (transcript.ErrInvalidID, the same value).
	ErrInvalidID = transcript.ErrInvalidID
	ErrNotFound  = errors.New("session not found")
	ErrExists    = errors.New("session already exists")
	ErrClosed    = errors.New("session is closed")
)

func boolPtr(b bool) *bool { return &b }
