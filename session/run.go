package session

import (
	"context"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// run is every event, in four steps: the changes flow.Before asks for are
// saved before the hooks run (they read the transcript); the hooks run
// without the lock; what the rules need from the world (an ask, a worktree
// path) is found, still without the lock; and the changes flow.After
// returns are applied and saved. The rules themselves are all in flow:
// this method only moves data between them, the hooks and the file.
func (s *Session) run(ctx context.Context, in, client event.Input, ask AskFunc) (Outcome, error) {
	p, err := s.start(ctx, in, client)
	if err != nil {
		return Outcome{}, err
	}
	return p.Finish(s.findFacts(ctx, p.Questions, ask))
}

// Pending is an event whose hooks have run and whose rules wait for the
// answers to their Questions (flow's two phases, internal/flow/doc.go): the caller
// finds them itself (asks the user its own way, or leaves the ask to a
// prompt outside the session with flow.AskedElsewhere) and hands them to
// Finish, which must be called exactly once. The session is not locked in
// between: an ask may wait minutes for the user.
type Pending struct {
	// Questions are what the rules need from the world.
	Questions flow.Questions

	s   *Session
	in  event.Input
	res hooks.Result
	ev  applied
}

// start is an event's first phase: the changes flow.Before asks for are
// saved, the hooks run (with what the client said, Report.Client), and the
// rules' questions are known.
func (s *Session) start(ctx context.Context, in, client event.Input) (*Pending, error) {
	s.enter()
	ev := applied{blocks: []Block{}} // never nil: the wire has "blocks":[]
	err := s.begin(func() error {
		var changes []flow.Change
		var err error
		if in, changes, err = flow.Before(in, lockedState{s}); err != nil {
			return err
		}
		s.apply(&ev, changes)
		return nil
	}, func() bool { return s.hooksMayRun(in) })
	if err != nil {
		_ = s.leave()
		return nil, err
	}
	res := s.fire(ctx, in, client)
	return &Pending{Questions: flow.QuestionsFor(in, res), s: s, in: in, res: res, ev: ev}, nil
}

// Facts are the answers the session finds itself (a worktree path), with
// ask as the answer to an ask: what a caller that asks the user its own
// way hands to Finish.
func (p *Pending) Facts(ask flow.AskAnswer) flow.Facts {
	f := p.s.findFacts(context.Background(), flow.Questions{Worktree: p.Questions.Worktree}, nil)
	if p.Questions.Ask != nil {
		f.Ask = ask
	}
	return f
}

// Finish is an event's second phase: the changes flow.After returns for
// the hooks' answer and the facts are applied and saved.
func (p *Pending) Finish(facts flow.Facts) (Outcome, error) {
	s, in, ev := p.s, p.in, p.ev
	defer func() { _ = s.leave() }() // an ended session closed here: its files are released, its outcome stands
	s.mu.Lock()
	defer s.mu.Unlock()
	eff := flow.After(in, p.res, lockedState{s}, facts)
	if in.Event == event.PreToolUse && (eff.Permission == string(hooks.PermissionAllow) || eff.Permission == string(hooks.PermissionAsk)) {
		s.tools.start(in.ToolUseID, time.Now()) // an ask put elsewhere may let it run: duration_ms counts from here, as it did
	}
	s.refreshTools(&ev)
	s.apply(&ev, eff.Changes)
	return s.finish(Outcome{Answer: eff.Answer, Blocks: ev.blocks})
}

// findFacts answers the rules' questions: it asks the user (a nil ask means
// nobody can be asked) and resolves a worktree path. It runs without s.mu:
// an ask may wait minutes for the user.
func (s *Session) findFacts(ctx context.Context, q flow.Questions, ask AskFunc) flow.Facts {
	var f flow.Facts
	if q.Ask != nil && ask != nil {
		f.Ask = flow.UserDenied
		if ask(ctx, AskRequest{SessionID: s.id, ToolUseID: q.Ask.ToolUseID, ToolName: q.Ask.ToolName,
			ToolInput: q.Ask.ToolInput, Reason: q.Ask.Reason}) {
			f.Ask = flow.UserAllowed
		}
	}
	if q.Worktree != "" {
		f.WorktreePath, f.WorktreeErr = hooks.ResolveWorktreePath(s.store.root, q.Worktree)
	}
	return f
}

// lockedState is the session as the rules read it (flow.State); the
// caller holds s.mu.
type lockedState struct{ s *Session }

func (st lockedState) Root() string                        { return st.s.store.root }
func (st lockedState) Cwd() string                         { return st.s.cwd }
func (st lockedState) StopStreak() int                     { return st.s.stopBlocks }
func (st lockedState) SubagentStopStreak(agent string) int { return st.s.subagentStopBlocks[agent] }
func (st lockedState) LastAssistantText() string           { return st.s.conv.lastAssistantText() }

// applied is what applying an event's changes produced so far: the blocks
// to report, and the prompt the event added (which ErasePrompt removes).
type applied struct {
	blocks []Block
	prompt uint64
}

func (a *applied) add(bs ...Block) { a.blocks = append(a.blocks, bs...) }

// reportTool reports a tool block once: a later change of the same block
// replaces the earlier report in place.
func (a *applied) reportTool(b Block) {
	for i := range a.blocks {
		if a.blocks[i].Type == BlockTool && a.blocks[i].Tool().ID == b.Tool().ID {
			a.blocks[i] = b
			return
		}
	}
	a.add(b)
}

// refreshTools reports the tool blocks Before changed as they are now:
// another request may have changed them while the hooks ran.
func (s *Session) refreshTools(a *applied) {
	for i := range a.blocks {
		if a.blocks[i].Type != BlockTool {
			continue
		}
		if mi, bi, ok := s.conv.findTool(a.blocks[i].Tool().ID); ok {
			a.blocks[i] = s.conv.msgs[mi].Blocks[bi]
		}
	}
}

// apply makes the rules' changes to the conversation and the session's
// state, in order; the caller holds s.mu. The conversation decides where
// each block goes (ops.go).
func (s *Session) apply(a *applied, changes []flow.Change) {
	for _, c := range changes {
		switch c.Kind {
		case flow.AddPrompt:
			a.prompt = s.conv.addUser(Block{Type: BlockText, Content: c.Text})
		case flow.RecordTool:
			if s.ensureTool(c.Tool.ID, c.Tool.Name, c.Tool.Input) {
				// Reported as it is, not marked changed again: that would
				// make the save encode it once more to find it equal (a
				// 100 MB input costs that much memory and time).
				if mi, bi, ok := s.conv.findTool(c.Tool.ID); ok {
					a.reportTool(s.conv.msgs[mi].Blocks[bi])
				}
			}
		case flow.SetToolResult:
			if b, ok := s.conv.updateTool(c.Tool.ID, func(t *Tool) {
				t.Result, t.Success, t.Error = c.Text, boolPtr(c.Success), c.Refusal
			}); ok {
				a.reportTool(b)
			}
		case flow.SetToolInput:
			if b, ok := s.conv.updateTool(c.Tool.ID, func(t *Tool) { t.Input = c.Tool.Input }); ok {
				a.reportTool(b)
			}
		case flow.ErasePrompt:
			s.conv.remove(a.prompt)
		case flow.RewritePrompt:
			s.conv.setText(a.prompt, c.Text)
		case flow.Warn:
			a.add(s.conv.addWarn(c.Text))
		case flow.Error:
			a.add(s.conv.addError(c.Text))
		case flow.UserText:
			b := Block{Type: BlockText, Content: c.Text}
			s.conv.addUser(b)
			a.add(b)
		case flow.Context:
			a.add(s.conv.addHookBlocks(string(c.Event), c.Texts)...)
		case flow.Deliver:
			a.add(s.conv.addDelivered(c.Delivered)...)
		case flow.SetStopStreak:
			s.stopBlocks = c.N
		case flow.SetSubagentStopStreak:
			s.setSubagentStopStreak(c.Agent, c.N)
		case flow.SetCwd:
			s.cwd = c.Text
		}
	}
}

func (s *Session) setSubagentStopStreak(agent string, n int) {
	if n == 0 {
		delete(s.subagentStopBlocks, agent)
		return
	}
	if s.subagentStopBlocks == nil {
		s.subagentStopBlocks = map[string]int{}
	}
	s.subagentStopBlocks[agent] = n
}
