package session

import "time"

// maxTimedTools bounds how many tool calls a session remembers the start
// of: an agent that never reports its tools' results must not grow it.
const maxTimedTools = 256

// toolClock remembers when the session answered PreToolUse with "allow"
// for each tool call, so that PostToolUse and PostToolUseFailure hooks get
// duration_ms when the client does not say it: Claude Code's duration_ms
// is the tool's run time, which excludes the permission prompt and the
// PreToolUse hooks, and so starts when PreToolUse was answered. Guarded by
// Session.mu; the oldest calls are forgotten past maxTimedTools.
type toolClock struct {
	started map[string]time.Time
	order   []string // tool use ids in the order they started, taken ones included
}

// start notes that the call id was allowed to run at now.
func (c *toolClock) start(id string, now time.Time) {
	if id == "" {
		return
	}
	if c.started == nil {
		c.started = map[string]time.Time{}
	}
	if _, ok := c.started[id]; !ok {
		c.order = append(c.order, id)
	}
	c.started[id] = now
	for len(c.started) > maxTimedTools {
		delete(c.started, c.order[0])
		c.order = c.order[1:]
	}
	if len(c.order) > 2*maxTimedTools {
		live := c.order[:0]
		for _, id := range c.order {
			if _, ok := c.started[id]; ok {
				live = append(live, id)
			}
		}
		c.order = live
	}
}

// take returns how many milliseconds the call id ran until now, and
// forgets it; nil when the session did not see it start.
func (c *toolClock) take(id string, now time.Time) *int64 {
	at, ok := c.started[id]
	if !ok {
		return nil
	}
	delete(c.started, id)
	ms := now.Sub(at).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	return &ms
}
