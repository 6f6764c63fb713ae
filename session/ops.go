package session

import (
	"cmp"
	"slices"

	"github.com/wavehooks/wavehooks/session/transcript"
)

// The message operations of docs/hooks.md, "Exit codes" (addUserMessage, updateToolBlock,
// addErrorBlock, removeLastUserMessage) plus warn and hook blocks, on a plain
// message list that remembers which messages changed since it was last
// saved, so that saving rewrites only those.
//
// Placement rule. Error and warn blocks are notices about what just happened:
// they go to the last message when it is an assistant message, else into a
// new assistant message. Hook blocks and text injected as context are for the
// model: each event's context goes into new user messages. The user's prompt
// is therefore never mixed with anything, which is what lets a blocked prompt
// be erased whole: "UserPromptSubmit exit 2 with stderr bad" leaves exactly
// one error block "bad" and no user message.
type conversation struct {
	msgs []Message
	// dirty is the index of the first message that may differ from the file;
	// clean when nothing changed since the last save.
	dirty int
	// touched lists the blocks changed in place since the last save. Blocks
	// are otherwise only appended to a message or cut from its end, so with
	// it the file's encoders re-encode only what changed (see encode.go).
	touched []transcript.BlockRef
	nextSeq uint64
	// noResults says that the first n blocks of message seq hold no tool
	// result, so that placing a tool call does not scan a long message again.
	noResults struct {
		seq uint64
		n   int
	}
	// tools maps a tool id to the seq of the message holding its block, so
	// that finding a tool (or learning it is new) does not scan the session.
	tools map[string]uint64
	// undoLog, while set, records what it takes to undo the changes made
	// since startUndo: they only append or change tool blocks in place.
	undoLog *undoLog
}

type undoLog struct {
	msgs   int // len(msgs) at startUndo
	blocks int // len of the last message's blocks at startUndo
	tools  []undoTool
}

// undoTool is a tool block as it was before updateTool changed it.
type undoTool struct {
	seq uint64
	i   int
	old Block
}

func (c *conversation) startUndo() {
	u := &undoLog{msgs: len(c.msgs)}
	if u.msgs > 0 {
		u.blocks = len(c.msgs[u.msgs-1].Blocks)
	}
	c.undoLog = u
}

func (c *conversation) stopUndo() { c.undoLog = nil }

// undo takes back every change since startUndo. The caller rewrites the
// file whole afterwards (a failed save leaves it to do so).
func (c *conversation) undo() {
	u := c.undoLog
	if u == nil {
		return
	}
	for i := len(u.tools) - 1; i >= 0; i-- {
		t := u.tools[i]
		if mi := c.indexOf(t.seq); mi >= 0 && t.i < len(c.msgs[mi].Blocks) {
			c.msgs[mi].Blocks[t.i] = t.old
			c.touchBlock(mi, t.i)
		}
	}
	if len(c.msgs) > u.msgs {
		c.truncate(u.msgs)
	}
	if n := u.msgs; n > 0 && len(c.msgs[n-1].Blocks) > u.blocks {
		clear(c.msgs[n-1].Blocks[u.blocks:])
		c.msgs[n-1].Blocks = c.msgs[n-1].Blocks[:u.blocks]
		c.touch(n - 1)
	}
}

// clean is the dirty index of a conversation the file holds whole.
const clean = transcript.Unchanged

func newConversation(msgs []Message) *conversation {
	c := &conversation{dirty: clean}
	c.reset(msgs)
	return c
}

// reset replaces every message (a load or a reload from disk); the caller
// decides whether the file must be rewritten.
func (c *conversation) reset(msgs []Message) {
	c.msgs = msgs
	transcript.Intern(c.msgs)
	c.renumber(c.nextSeq)
}

// renumber gives every message a seq above after, in order, and indexes
// the tool blocks again.
func (c *conversation) renumber(after uint64) {
	tools := 0
	for i := range c.msgs {
		for j := range c.msgs[i].Blocks {
			if c.msgs[i].Blocks[j].Type == BlockTool {
				tools++
			}
		}
	}
	c.tools = make(map[string]uint64, tools) // sized once: a long session's map is not grown step by step
	for i := range c.msgs {
		c.msgs[i].SetSeq(after + uint64(i) + 1)
		c.noteTools(c.msgs[i].Seq(), c.msgs[i].Blocks)
	}
	c.nextSeq = after + uint64(len(c.msgs))
}

func (c *conversation) noteTools(seq uint64, blocks []Block) {
	for i := range blocks {
		if blocks[i].Type == BlockTool {
			c.tools[blocks[i].Tool().ID] = seq
		}
	}
}

func (c *conversation) touch(i int) { c.dirty = min(c.dirty, i) }

// touchBlock notes that block bi of message mi changed in place.
func (c *conversation) touchBlock(mi, bi int) {
	c.touch(mi)
	c.touched = append(c.touched, transcript.BlockRef{Seq: c.msgs[mi].Seq(), I: bi})
}

// saved forgets the changes once the file holds them.
func (c *conversation) saved() {
	c.dirty = clean
	clear(c.touched)
	c.touched = c.touched[:0]
}

// add appends a new message and returns its seq.
func (c *conversation) add(role string, blocks ...Block) uint64 {
	c.nextSeq++
	if blocks == nil {
		blocks = []Block{}
	}
	c.msgs = append(c.msgs, Message{Role: role, Blocks: blocks})
	c.msgs[len(c.msgs)-1].SetSeq(c.nextSeq)
	c.noteTools(c.nextSeq, blocks)
	c.touch(len(c.msgs) - 1)
	return c.nextSeq
}

// addUser is the message a blocked prompt, tool or stop adds: the prompt, injected context, or
// feedback the model must read.
func (c *conversation) addUser(blocks ...Block) uint64 { return c.add(RoleUser, blocks...) }

// appendAssistant adds blocks to the last message when it is an assistant
// message, else to a new assistant message (the placement rule).
func (c *conversation) appendAssistant(blocks ...Block) {
	if n := len(c.msgs); n > 0 && c.msgs[n-1].Role == RoleAssistant {
		c.msgs[n-1].Blocks = append(c.msgs[n-1].Blocks, blocks...)
		c.noteTools(c.msgs[n-1].Seq(), blocks)
		c.touch(n - 1)
		return
	}
	c.add(RoleAssistant, blocks...)
}

// addTool records a tool call that no addAssistantMessage announced (a
// proxy or a simple agent reports its calls through preToolUse only). It
// joins the last message while that is a reply recorded by
// addAssistantMessage and none of its tool calls has a result yet: calls the
// model made in one reply. Otherwise it starts an assistant message of its
// own, as the model's next step after a result came back is a new reply in
// the model's API. Either way the session's messages stay short, so a
// change re-encodes and resends little however many calls the session holds.
func (c *conversation) addTool(b Block) {
	if n := len(c.msgs); n > 0 && c.msgs[n-1].Reply() && !c.hasResults(n-1) {
		c.appendAssistant(b)
		return
	}
	c.add(RoleAssistant, b)
}

// hasResults reports whether a tool block of message mi has a result.
func (c *conversation) hasResults(mi int) bool {
	m := &c.msgs[mi]
	from := 0
	if c.noResults.seq == m.Seq() {
		from = min(c.noResults.n, len(m.Blocks))
	}
	for i := from; i < len(m.Blocks); i++ {
		if m.Blocks[i].Type == BlockTool && m.Blocks[i].HasResult() {
			c.noResults.seq = 0
			return true
		}
	}
	c.noResults.seq, c.noResults.n = m.Seq(), len(m.Blocks)
	return false
}

// addError adds an error block: text for the user that the model never sees.
func (c *conversation) addError(text string) Block {
	b := Block{Type: BlockError, Content: text}
	c.appendAssistant(b)
	return b
}

// addWarn adds a warning the user sees and the model never does (docs/hooks.md, "JSON output":
// warn flow ends at the user).
func (c *conversation) addWarn(text string) Block {
	b := Block{Type: BlockWarn, Content: text}
	c.appendAssistant(b)
	return b
}

// addHookBlocks puts an event's additional context for the model into one new
// user message.
func (c *conversation) addHookBlocks(ev string, contents []string) []Block {
	if len(contents) == 0 {
		return nil
	}
	blocks := make([]Block, len(contents))
	for i, s := range contents {
		blocks[i] = Block{Type: BlockHook, Content: s}.WithHook(Hook{Event: ev})
	}
	c.addUser(blocks...)
	return blocks
}

// findTool returns where the tool block with the given id is.
func (c *conversation) findTool(id string) (mi, bi int, ok bool) {
	seq, known := c.tools[id]
	if !known {
		return -1, -1, false
	}
	if mi = c.indexOf(seq); mi >= 0 {
		if bi = toolIndex(c.msgs[mi].Blocks, id); bi >= 0 {
			return mi, bi, true
		}
	}
	// The message was removed; an older block may still have the id.
	delete(c.tools, id)
	for mi = len(c.msgs) - 1; mi >= 0; mi-- {
		if bi = toolIndex(c.msgs[mi].Blocks, id); bi >= 0 {
			c.tools[id] = c.msgs[mi].Seq()
			return mi, bi, true
		}
	}
	return -1, -1, false
}

func toolIndex(blocks []Block, id string) int {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Type == BlockTool && blocks[i].Tool().ID == id {
			return i
		}
	}
	return -1
}

// updateTool it changes the tool block with
// the given id and returns the block as it now is.
func (c *conversation) updateTool(id string, change func(*Tool)) (Block, bool) {
	mi, bi, ok := c.findTool(id)
	if !ok {
		return Block{}, false
	}
	b := &c.msgs[mi].Blocks[bi]
	if c.undoLog != nil {
		c.undoLog.tools = append(c.undoLog.tools, undoTool{seq: c.msgs[mi].Seq(), i: bi, old: *b})
	}
	t := b.Tool()
	change(&t)
	b.SetTool(t)
	c.touchBlock(mi, bi)
	if c.noResults.seq == c.msgs[mi].Seq() && b.HasResult() {
		c.noResults.seq = 0
	}
	return *b, true
}

// indexOf returns the index of the message with the given seq, or -1.
// Messages are only ever appended or removed, so seqs increase along the list.
func (c *conversation) indexOf(seq uint64) int {
	i, found := slices.BinarySearchFunc(c.msgs, seq, func(m Message, seq uint64) int { return cmp.Compare(m.Seq(), seq) })
	if !found {
		return -1
	}
	return i
}

// remove it erases the
// message the event itself added, even if other messages followed it.
func (c *conversation) remove(seq uint64) bool {
	i := c.indexOf(seq)
	if i < 0 {
		return false
	}
	c.msgs = slices.Delete(c.msgs, i, i+1)
	c.touch(i)
	return true
}

// setText replaces the text of the message with the given seq (a prompt
// a hook rewrote) in place: its first block becomes text.
func (c *conversation) setText(seq uint64, text string) bool {
	i := c.indexOf(seq)
	if i < 0 || len(c.msgs[i].Blocks) == 0 {
		return false
	}
	c.msgs[i].Blocks[0].Content = text
	c.touchBlock(i, 0)
	return true
}

// truncate drops every message from index n on.
func (c *conversation) truncate(n int) {
	if n < len(c.msgs) {
		clear(c.msgs[n:])
		c.msgs = c.msgs[:n]
		c.touch(n)
	}
}
