package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// fixedFirer answers every event with a fixed result: the benchmark measures
// the server's side of an event, and hook processes are left out by definition.
type fixedFirer map[event.Event]hooks.Result

func (f fixedFirer) FireGated(_ context.Context, in event.Input, _ hooks.ReadGate) hooks.Result {
	r := f[in.Event]
	r.Event, r.Continue = in.Event, true
	return r
}

// BenchmarkEventCost measures one event on a session of 10 and of 10,000
// messages (about 20 MB): the cost must not grow with the session. Each
// iteration is timed alone; the session is cut back to its size between
// iterations, untimed.
func BenchmarkEventCost(b *testing.B) {
	firer := fixedFirer{
		event.UserPromptSubmit: {Context: []string{"ctx from a hook"}, AdditionalContext: []string{"more context"}},
		event.PreToolUse:       {Permission: hooks.PermissionAllow, UpdatedInput: json.RawMessage(`{"command":"ls -la"}`)},
		event.PostToolUse:      {AdditionalContext: []string{"formatted"}},
	}
	events := []struct {
		name string
		run  func(s *Session, i int) error
	}{{
		name: "prompt", // UserPromptSubmit with injected context: 2 writes
		run: func(s *Session, i int) error {
			_, err := s.UserPromptSubmit(context.Background(), "please list the files")
			return err
		},
	}, {
		name: "tool", // the model's tool call recorded, then PreToolUse and PostToolUse: 5 writes
		run:  toolEvent,
	}}
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		for _, size := range []int{10, 10000} {
			for _, ev := range events {
				b.Run(fmt.Sprintf("%s/%d/%s", format, size, ev.name), func(b *testing.B) {
					benchEvent(b, firer, format, size, false, ev.run)
				})
			}
		}
	}
}

// BenchmarkEventCostWhileAHookReads is BenchmarkEventCost's tool event while
// a hook of the session runs (parallel tool calls, an async hook): every
// save then copies the file, so this cost grows with the session; the
// benchmark says by how much.
func BenchmarkEventCostWhileAHookReads(b *testing.B) {
	firer := fixedFirer{event.PreToolUse: {Permission: hooks.PermissionAllow}}
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		for _, size := range []int{10, 10000} {
			b.Run(fmt.Sprintf("%s/%d/tool", format, size), func(b *testing.B) {
				benchEvent(b, firer, format, size, true, toolEvent)
			})
		}
	}
}

// toolEvent is the model's tool call recorded, then PreToolUse and PostToolUse: 5 writes.
func toolEvent(s *Session, i int) error {
	id := fmt.Sprintf("toolu_%d", i)
	in := json.RawMessage(`{"command":"ls"}`)
	if err := s.AddAssistantMessage([]Block{{Type: BlockText, Content: "listing"},
		ToolBlock(Tool{ID: id, Name: "Bash", Input: in})}); err != nil {
		return err
	}
	if _, err := s.PreToolUse(context.Background(), id, "Bash", in, nil); err != nil {
		return err
	}
	_, err := s.PostToolUse(context.Background(), id, "Bash", in, json.RawMessage(`{"output":"a.go\nb.go"}`))
	return err
}

// benchEvent times run on a session of size messages, alone in each
// iteration: the session is cut back to its size between iterations,
// untimed. With reading, the session believes a hook of its own is running.
func benchEvent(b *testing.B, firer Firer, format Format, size int, reading bool, run func(*Session, int) error) {
	st, err := NewStore(Options{WaveHome: b.TempDir(), Format: format, Firer: firer})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := st.Create("bench-session")
	if err != nil {
		b.Fatal(err)
	}
	s.mu.Lock()
	s.conv.reset(benchMessages(size))
	s.file.MustRewrite()
	err = s.save()
	s.mu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	if reading {
		s.file.AddReader()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := run(s, i); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.mu.Lock()
		s.conv.truncate(size)
		err := s.save()
		s.mu.Unlock()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// benchMessages is a conversation of n messages of about 2 KB each, user
// and assistant in turn, the assistant calling a tool now and then.
func benchMessages(n int) []Message {
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 45)
	msgs := make([]Message, n)
	for i := range msgs {
		if i%2 == 0 {
			msgs[i] = Message{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: text}}}
			continue
		}
		blocks := []Block{{Type: BlockText, Content: text}}
		if i%6 == 1 {
			blocks = append(blocks, ToolBlock(Tool{ID: fmt.Sprintf("old_%d", i), Name: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`), Result: "package main", Success: boolPtr(true)}))
		}
		msgs[i] = Message{Role: RoleAssistant, Blocks: blocks}
	}
	return msgs
}

// growthCalls is how many calls BenchmarkSessionGrowth makes on one session,
// and growthWindow how many of the first and of the last it compares.
const (
	growthCalls  = 3000
	growthWindow = 300
)

// BenchmarkSessionGrowth drives one session from empty through growthCalls
// calls with a fresh tool id each, as agents send them, and compares the p50
// of the last growthWindow calls with that of the first: the ratio must stay
// near 1 whatever the call pattern. The patterns:
//
//   - turn: addAssistantMessage with a text and a tool block, then
//     preToolUse and postToolUse (an agent in the editor);
//   - pre-post: preToolUse and postToolUse without addAssistantMessage (a
//     proxy or a simple agent);
//   - pre-only: preToolUse alone (a proxy that only asks for permission);
//   - one-message: one addAssistantMessage holding every tool block, then
//     preToolUse and postToolUse for each (one reply with thousands of calls).
//
// Each iteration builds one session; run with -benchtime 1x or a few x.
func BenchmarkSessionGrowth(b *testing.B) {
	firer := fixedFirer{event.PreToolUse: {Permission: hooks.PermissionAllow}}
	in := json.RawMessage(`{"command":"ls -la","description":"list the files in the working directory"}`)
	out := json.RawMessage(`{"output":"a.go\nb.go\nc.go\nREADME.md"}`)
	ctx := context.Background()
	patterns := []struct {
		name  string
		setup func(s *Session) error
		call  func(s *Session, i int) error
	}{{
		name: "turn",
		call: func(s *Session, i int) error {
			id := fmt.Sprintf("toolu_%06d", i)
			if err := s.AddAssistantMessage([]Block{{Type: BlockText, Content: "Let me look."},
				ToolBlock(Tool{ID: id, Name: "Bash", Input: in})}); err != nil {
				return err
			}
			if _, err := s.PreToolUse(ctx, id, "Bash", in, nil); err != nil {
				return err
			}
			_, err := s.PostToolUse(ctx, id, "Bash", in, out)
			return err
		},
	}, {
		name: "pre-post",
		call: func(s *Session, i int) error {
			id := fmt.Sprintf("toolu_%06d", i)
			if _, err := s.PreToolUse(ctx, id, "Bash", in, nil); err != nil {
				return err
			}
			_, err := s.PostToolUse(ctx, id, "Bash", in, out)
			return err
		},
	}, {
		name: "pre-only",
		call: func(s *Session, i int) error {
			_, err := s.PreToolUse(ctx, fmt.Sprintf("toolu_%06d", i), "Bash", in, nil)
			return err
		},
	}, {
		name: "one-message",
		setup: func(s *Session) error {
			blocks := make([]Block, growthCalls)
			for i := range blocks {
				blocks[i] = ToolBlock(Tool{ID: fmt.Sprintf("toolu_%06d", i), Name: "Bash", Input: in})
			}
			return s.AddAssistantMessage(blocks)
		},
		call: func(s *Session, i int) error {
			id := fmt.Sprintf("toolu_%06d", i)
			if _, err := s.PreToolUse(ctx, id, "Bash", in, nil); err != nil {
				return err
			}
			_, err := s.PostToolUse(ctx, id, "Bash", in, out)
			return err
		},
	}}
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		for _, p := range patterns {
			b.Run(fmt.Sprintf("%s/%s", format, p.name), func(b *testing.B) {
				var first, last []time.Duration
				b.ReportAllocs()
				for n := 0; n < b.N; n++ {
					b.StopTimer()
					st, err := NewStore(Options{WaveHome: b.TempDir(), Format: format, Firer: firer})
					if err != nil {
						b.Fatal(err)
					}
					s, err := st.Create("growth-session")
					if err != nil {
						b.Fatal(err)
					}
					if p.setup != nil {
						if err := p.setup(s); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					for i := 0; i < growthCalls; i++ {
						start := time.Now()
						if err := p.call(s, i); err != nil {
							b.Fatal(err)
						}
						d := time.Since(start)
						switch {
						case i < growthWindow:
							first = append(first, d)
						case i >= growthCalls-growthWindow:
							last = append(last, d)
						}
					}
					b.StopTimer()
					st.Close()
				}
				f, l := median(first), median(last)
				b.ReportMetric(float64(f.Nanoseconds())/1e3, "first-p50-µs")
				b.ReportMetric(float64(l.Nanoseconds())/1e3, "last-p50-µs")
				b.ReportMetric(float64(l)/float64(f), "last/first")
			})
		}
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
