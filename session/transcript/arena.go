package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unsafe"
)

// msgArena holds the blocks, the tool calls and the short strings of the
// messages a load decodes, packed into large shared chunks
// (docs/performance.md, "Resume and memory"). Decoded one by one, each
// message's block list, each tool call and each string is an allocation of
// its own, rounded up to the allocator's next size class: for a long session
// of small messages that rounding, and the garbage it leaves, is a good part
// of its memory.
//
// Sharing is safe because nothing is ever written into the arena after it
// was handed out: strings are immutable, a message's blocks are a slice whose
// capacity ends where they end (an append copies them elsewhere), a block
// changed in place (a tool's result) is that message's own, and a block's
// Tool is replaced, never written through (Block.SetTool), once the load
// handed it out (during a jsonl load a tool result is written over its
// call, setTool).
type msgArena struct {
	blocks []Block
	tools  []Tool
	bytes  []byte
	// scratch is the block list a jsonl line is converted into
	// (appendFromAPI) before keepBlocks copies it.
	scratch []Block
	// line is the buffer the strings being kept may point into (a line
	// decoded without copying, see decodeMessageLine), which is reused for
	// the next line: a string in it is always copied.
	line []byte
}

const (
	// arenaBlocks is how many blocks a chunk holds, as many as fill 64 KiB
	// (a chunk is a large allocation, whole pages); a message with more than
	// a quarter of that keeps its own list.
	arenaBlocks = 64 << 10 / int(unsafe.Sizeof(Block{}))
	// arenaTools is how many tool calls a chunk holds, as many as fill 64 KiB.
	arenaTools = 64 << 10 / int(unsafe.Sizeof(Tool{}))
	// arenaBytes is the size of a chunk of string bytes; a string longer
	// than arenaString keeps its own allocation (the decoder's).
	arenaBytes  = 32 << 10
	arenaString = 2 << 10
)

// keepBlocks returns a copy of blocks in the arena (or of its own, for a
// long list), which a decoder may then reuse; their strings and tool calls
// are kept as they are (appendFromAPI puts them in the arena).
func (a *msgArena) keepBlocks(blocks []Block) []Block {
	if n := len(blocks); n <= arenaBlocks/4 {
		return a.blockList(n, blocks)
	}
	return slices.Clone(blocks)
}

// toolBlock is ToolBlock(t) with t in the arena; a nil arena is the heap.
// t's strings are kept as they are.
func (a *msgArena) toolBlock(t Tool) Block {
	if a == nil {
		return ToolBlock(t)
	}
	b := Block{Type: BlockTool}
	a.setTool(&b, t)
	return b
}

// setTool is b.SetTool(t) with t in the arena; a nil arena is the heap.
// t's strings are kept as they are. A block that already has a tool call
// (a tool_result for an earlier tool_use) gets t written over it, which
// Block.SetTool never does: with an arena, every tool call is one
// appendFromAPI placed in it during this load, which hands nothing out
// before it ends, and a replaced call would stay in its chunk as long as
// its neighbours.
func (a *msgArena) setTool(b *Block, t Tool) {
	switch {
	case a == nil || t.isZero():
		b.SetTool(t)
	case b.tool != nil:
		if t.Success != nil {
			t.Success = sharedBool[*t.Success]
		}
		*b.tool = t
	default:
		b.tool = a.place(t)
	}
}

// apiMessage copies the strings of m that appendFromAPI keeps into the
// arena (short ones into its chunks; long ones that point into line, the
// decoder's input, once), so that nothing of the message points into line,
// which is reused for the next one.
func (a *msgArena) apiMessage(m *APIMessage, line []byte) {
	a.line = line
	defer func() { a.line = nil }()
	m.Role, m.Text = a.name(m.Role), a.str(m.Text)
	for i := range m.Blocks {
		b := &m.Blocks[i]
		switch b.Type {
		case "text":
			b.Text = a.str(b.Text)
		case "tool_use":
			b.ID, b.Name, b.Input = a.str(b.ID), a.str(b.Name), a.raw(b.Input)
		case "tool_result":
			b.Content = a.str(b.Content)
		}
	}
}

// message returns the message a line decoded, its blocks, tool calls and
// short strings in the arena. Its strings may point into line, the decoder's
// input, which is reused afterwards, as is lm's block list: nothing the
// message keeps points into either.
func (a *msgArena) message(lm *lineMessage, line []byte) Message {
	a.line = line
	defer func() { a.line = nil }()
	m := Message{Role: a.name(lm.Role)}
	switch n := len(lm.Blocks); {
	case n == 0:
		return m
	case n <= arenaBlocks/4:
		m.Blocks = a.blockList(n, nil)
	default:
		m.Blocks = make([]Block, n)
	}
	for i := range lm.Blocks {
		bj := &lm.Blocks[i]
		b := &m.Blocks[i]
		b.Type, b.Content = a.name(bj.Type), a.str(bj.Content)
		if !bj.Tool.isZero() {
			b.tool = a.tool(bj.Tool)
		}
		if bj.Hook.Event != "" || bj.Hook.Metadata != nil {
			b.hook = &Hook{Event: a.name(bj.Hook.Event), Metadata: bj.Hook.Metadata}
		}
	}
	return m
}

// blockList returns room for n blocks in the arena, holding from's if given.
func (a *msgArena) blockList(n int, from []Block) []Block {
	if cap(a.blocks)-len(a.blocks) < n {
		a.blocks = make([]Block, 0, arenaBlocks)
	}
	start := len(a.blocks)
	if from != nil {
		a.blocks = append(a.blocks, from...)
	} else {
		a.blocks = a.blocks[:start+n]
	}
	return a.blocks[start : start+n : start+n]
}

// tool returns a copy of t in the arena, its short strings there too.
func (a *msgArena) tool(t Tool) *Tool {
	t.ID, t.Name, t.Result, t.Error = a.str(t.ID), a.str(t.Name), a.str(t.Result), a.str(t.Error)
	t.Input = a.raw(t.Input)
	return a.place(t)
}

// place puts t in the arena as it is, but for its Success, which it shares.
func (a *msgArena) place(t Tool) *Tool {
	if t.Success != nil {
		t.Success = sharedBool[*t.Success]
	}
	if len(a.tools) == cap(a.tools) {
		a.tools = make([]Tool, 0, arenaTools)
	}
	a.tools = append(a.tools, t)
	return &a.tools[len(a.tools)-1]
}

// sharedBool holds the two values of Tool.Success, which the package and
// its callers replace but never change through the pointer: decoded, each
// is an allocation of its own that keeps a 16-byte block of the allocator
// alive.
var sharedBool = map[bool]*bool{false: new(bool), true: boolPtr(true)}

// str returns a copy of s in the arena, or s itself when it is empty or long.
func (a *msgArena) str(s string) string {
	switch {
	case len(s) == 0:
		return s
	case len(s) > arenaString && a.borrowed(unsafe.StringData(s)):
		return strings.Clone(s)
	case len(s) > arenaString:
		return s
	}
	start := a.reserve(len(s))
	a.bytes = append(a.bytes, s...)
	return unsafe.String(&a.bytes[start], len(s))
}

// raw is str for a JSON value.
func (a *msgArena) raw(r json.RawMessage) json.RawMessage {
	switch {
	case len(r) == 0:
		return r
	case len(r) > arenaString && a.borrowed(&r[0]):
		return bytes.Clone(r)
	case len(r) > arenaString:
		return r
	}
	start := a.reserve(len(r))
	a.bytes = append(a.bytes, r...)
	return a.bytes[start:len(a.bytes):len(a.bytes)]
}

// name returns s, a short string many blocks repeat (a role, a block's
// type, an event's name), as the package's constant when it is one, so that
// they share it, or else copied (Intern shares the others).
func (a *msgArena) name(s string) string {
	switch s {
	case RoleUser:
		return RoleUser
	case RoleAssistant:
		return RoleAssistant
	case BlockText:
		return BlockText
	case BlockTool:
		return BlockTool
	case BlockError:
		return BlockError
	case BlockWarn:
		return BlockWarn
	case BlockHook:
		return BlockHook
	}
	return a.str(s)
}

// borrowed reports whether p points into the line being decoded.
func (a *msgArena) borrowed(p *byte) bool {
	if len(a.line) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(a.line)))
	at := uintptr(unsafe.Pointer(p))
	return at >= start && at < start+uintptr(len(a.line))
}

// reserve makes room for n bytes and says where they will start.
func (a *msgArena) reserve(n int) int {
	if cap(a.bytes)-len(a.bytes) < n {
		a.bytes = make([]byte, 0, arenaBytes)
	}
	return len(a.bytes)
}

// Intern shares one copy of the short strings every message of a loaded
// session repeats (roles, block types, tool names, hook events), and gives a
// message without blocks an empty list (the file and the wire carry
// "blocks":[]): decoding gives each message its own copy of each string,
// which in a long session of small messages is a good part of its memory.
// The conversation calls it on every list it takes whole (a load, a reload).
func Intern(msgs []Message) {
	in := interner{}
	for i := range msgs {
		m := &msgs[i]
		if m.Blocks == nil {
			m.Blocks = []Block{}
		}
		m.Role = in.of(m.Role)
		for j := range m.Blocks {
			b := &m.Blocks[j]
			b.Type = in.of(b.Type)
			if b.tool != nil && b.tool.Name != "" {
				b.tool.Name = in.of(b.tool.Name) // the same text: no copy of the block sees a change
			}
			if b.hook != nil && b.hook.Event != "" {
				b.hook.Event = in.of(b.hook.Event)
			}
		}
	}
}

// interner maps a short string to the one copy Intern shares.
type interner map[string]string

func (in interner) of(s string) string {
	if s == "" || len(s) > 64 {
		return s
	}
	if v, ok := in[s]; ok {
		return v
	}
	if len(in) < 1024 {
		in[s] = s
	}
	return s
}
