package session

import (
	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// addDelivered adds what async hooks said for the model since the
// session's last event (hooks.Result.Delivered) as hook blocks of the event
// that started each hook, marked async in their metadata, in one user
// message: Claude Code gives an async hook's additionalContext and
// systemMessage to the model on the next turn.
func (c *conversation) addDelivered(ds []hooks.Delivery) []Block {
	if len(ds) == 0 {
		return nil
	}
	blocks := make([]Block, len(ds))
	for i, d := range ds {
		blocks[i] = Block{Type: BlockHook, Content: d.Content}.WithHook(Hook{Event: string(d.Event), Metadata: map[string]any{"async": true, "hook": d.Hook}})
	}
	c.addUser(blocks...)
	return blocks
}

// Wake adds what an asyncRewake hook said when it exited 2 to the
// conversation at once, as a hook block the model reads (marked
// asyncRewake in its metadata), and saves it: the agent host sees the
// session change and wakes the agent, which Claude Code does even when the
// session is idle. It returns the block added.
func (s *Session) Wake(ev event.Event, hook, text string) (Block, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Block{}, ErrClosed
	}
	s.catchUp()
	b := Block{Type: BlockHook, Content: text}.WithHook(Hook{Event: string(ev), Metadata: map[string]any{"asyncRewake": true, "hook": hook}})
	s.conv.addUser(b)
	return b, s.save()
}
