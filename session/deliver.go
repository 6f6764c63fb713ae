package session

import (
	"github.com/wavehooks/wavehooks/hooks"
)

// deliver adds what async hooks said for the model since the session's
// last event (hooks.Result.Delivered) to the conversation, as hook blocks
// of the event that started each hook, marked async in their metadata:
// Claude Code gives an async hook's additionalContext and systemMessage to
// the model on the next turn. The caller holds s.mu.
func (s *Session) deliver(out *Outcome, res *hooks.Result) {
	if len(res.Delivered) == 0 {
		return
	}
	blocks := make([]Block, len(res.Delivered))
	for i, d := range res.Delivered {
		blocks[i] = Block{Type: BlockHook, HookEvent: string(d.Event), Content: d.Content,
			Metadata: map[string]any{"async": true, "hook": d.Hook}}
		out.AdditionalContext = append(out.AdditionalContext, d.Content)
	}
	s.conv.addUser(blocks...)
	out.add(blocks...)
}

// Wake adds what an asyncRewake hook said when it exited 2 to the
// conversation at once, as a hook block the model reads (marked
// asyncRewake in its metadata), and saves it: the agent host sees the
// session change and wakes the agent, which Claude Code does even when the
// session is idle. It returns the block added.
func (s *Session) Wake(ev hooks.Event, hook, text string) (Block, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Block{}, ErrClosed
	}
	s.catchUp()
	b := Block{Type: BlockHook, HookEvent: string(ev), Content: text, Metadata: map[string]any{"asyncRewake": true, "hook": hook}}
	s.conv.addUser(b)
	return b, s.save()
}
