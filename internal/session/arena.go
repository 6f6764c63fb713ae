package session

import (
	"encoding/json"
	"slices"
	"unsafe"
)

// msgArena holds the blocks and the short strings of the messages a load
// decodes, packed into large shared chunks (docs/performance.md, "Resume and
// memory"). Decoded one by one, each message's block list and each string is
// an allocation of its own, rounded up to the allocator's next size class:
// for a long session of small messages that rounding, and the garbage it
// leaves, is a good part of its memory.
//
// Sharing is safe because nothing is ever written into the arena after it
// was handed out: strings are immutable, a message's blocks are a slice whose
// capacity ends where they end (an append copies them elsewhere), and a
// block changed in place (a tool's result) is that message's own. Block.Input
// and Block.Success are never changed in place (see Message.clone).
type msgArena struct {
	blocks []Block
	bytes  []byte
}

const (
	// arenaBlocks is how many blocks a chunk holds, as many as fill 64 KiB
	// (a chunk is a large allocation, whole pages); a message with more than
	// a quarter of that keeps its own list.
	arenaBlocks = 64 << 10 / int(unsafe.Sizeof(Block{}))
	// arenaBytes is the size of a chunk of string bytes; a string longer
	// than arenaString keeps its own allocation (the decoder's).
	arenaBytes  = 32 << 10
	arenaString = 2 << 10
)

// keep moves m's blocks and short strings into the arena. m's block list is
// never kept itself, so that a decoder may reuse it for the next message;
// an empty one becomes nil (which conversation.reset makes empty again).
func (a *msgArena) keep(m *Message) {
	switch n := len(m.Blocks); {
	case n == 0:
		m.Blocks = nil
	case n <= arenaBlocks/4:
		if cap(a.blocks)-len(a.blocks) < n {
			a.blocks = make([]Block, 0, arenaBlocks)
		}
		start := len(a.blocks)
		a.blocks = append(a.blocks, m.Blocks...)
		m.Blocks = a.blocks[start : start+n : start+n]
	default:
		m.Blocks = slices.Clone(m.Blocks)
	}
	for i := range m.Blocks {
		b := &m.Blocks[i]
		b.Content, b.ID, b.Result, b.Error = a.str(b.Content), a.str(b.ID), a.str(b.Result), a.str(b.Error)
		b.Input = a.raw(b.Input)
		if b.Success != nil {
			b.Success = sharedBool[*b.Success]
		}
	}
}

// sharedBool holds the two values of Block.Success, which the package and
// its callers replace but never change through the pointer: decoded, each
// is an allocation of its own that keeps a 16-byte block of the allocator
// alive.
var sharedBool = map[bool]*bool{false: new(bool), true: boolPtr(true)}

// str returns a copy of s in the arena, or s itself when it is empty or long.
func (a *msgArena) str(s string) string {
	if len(s) == 0 || len(s) > arenaString {
		return s
	}
	start := a.reserve(len(s))
	a.bytes = append(a.bytes, s...)
	return unsafe.String(&a.bytes[start], len(s))
}

// raw is str for a JSON value.
func (a *msgArena) raw(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || len(r) > arenaString {
		return r
	}
	start := a.reserve(len(r))
	a.bytes = append(a.bytes, r...)
	return a.bytes[start:len(a.bytes):len(a.bytes)]
}

// reserve makes room for n bytes and says where they will start.
func (a *msgArena) reserve(n int) int {
	if cap(a.bytes)-len(a.bytes) < n {
		a.bytes = make([]byte, 0, arenaBytes)
	}
	return len(a.bytes)
}
