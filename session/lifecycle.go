package session

import (
	"context"
	"fmt"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// begin saves pending changes (a file to recreate, say) so that the file is
// complete before the event's hooks read it. When the save fails (disk
// full, directory gone), the change is taken back: the editor gets an error
// for it, and a prompt whose UserPromptSubmit hooks never ran must not reach
// the model with the next save that succeeds. hooksRead, asked after the
// change, says whether hooks may read the file next; with
// Options.SaveBeforeHooks nothing is written when they may not (nil: they
// may not, a change no event follows).
func (s *Session) begin(change func() error, hooksRead func() bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	save := s.saveCaughtUp
	if s.store.saveBeforeHooks {
		// Another process's change is not read in: with changes kept
		// unwritten, the session's state wins, written whole by the save
		// that finds the file changed (saveChecked), as while hooks run.
		save = s.save
	} else {
		s.catchUp()
	}
	if change == nil {
		return save()
	}
	s.conv.startUndo()
	err := change()
	if err == nil && (!s.store.saveBeforeHooks || (hooksRead != nil && hooksRead())) {
		err = save()
	}
	if err != nil {
		s.conv.undo()
	}
	s.conv.stopUndo()
	return err
}

// fire runs an event's hooks with the session's common stdin fields and
// what the client said with it (Report.Client). It is called without s.mu:
// hooks may take long and may run in parallel.
func (s *Session) fire(ctx context.Context, in, client event.Input) hooks.Result {
	in = s.withClientInput(in, client)
	in.SessionID, in.TranscriptPath, in.Cwd = s.id, s.TranscriptPath(), s.store.root
	if cwd := s.workingDir(); cwd != "" {
		in.Cwd = cwd
	}
	if s.store.firer == nil {
		return hooks.Result{Event: in.Event, Continue: true}
	}
	return s.store.firer.FireGated(ctx, in, hookReaders{s})
}

// hookReaders counts the session's running hook processes for save: a hook
// starts only between two writes, never during one.
type hookReaders struct{ s *Session }

// Enter counts hook processes about to start. With Options.SaveBeforeHooks
// it also writes what is not written yet:
// begin wrote the transcript when the event's hooks could run as the
// configuration stood then, and a reload in between (the proxy reads the
// settings at a prompt while the agent's messages are handled) may have
// added one; a hook never reads a transcript without the messages before it.
func (r hookReaders) Enter() {
	r.s.mu.Lock()
	// A failed write leaves the file as last written, whole (never half a
	// write); the session writes it whole at its next save or Flush, which
	// reports the error.
	_ = r.s.saveDeferred()
	if r.s.file != nil {
		r.s.file.AddReader()
	}
	r.s.mu.Unlock()
}

// Leave counts hook processes that ended; it takes neither lock of the
// session's conversation (the file's count is its own).
func (r hookReaders) Leave() {
	if r.s.file != nil {
		r.s.file.DoneReader()
	}
}

// finish saves the event's changes; the caller holds s.mu.
func (s *Session) finish(out Outcome) (Outcome, error) {
	return out, s.saveAfterChange()
}

// hooksMayRun reports whether any hook may run for in (hookPlanner), so
// that begin must write the transcript first.
func (s *Session) hooksMayRun(in event.Input) bool {
	p, ok := s.store.firer.(hookPlanner)
	return !ok || p.MayRun(in)
}

// SessionStart runs the SessionStart hooks (source: startup, resume, clear or
// compact). What they print becomes context for the model, as hook blocks in
// one user message.
func (s *Session) SessionStart(ctx context.Context, source string) (Outcome, error) {
	return s.Report(ctx, Report{Input: event.Input{Event: event.SessionStart, Source: source}})
}

// UserPromptSubmit adds the user's prompt, saves it (the hooks read it in
// the transcript) and runs the hooks. A blocked prompt is erased and the
// reason shown to the user only; otherwise the hooks' context follows the
// prompt. A new prompt ends a run of blocked Stop events.
func (s *Session) UserPromptSubmit(ctx context.Context, prompt string) (Outcome, error) {
	return s.Report(ctx, Report{Input: event.Input{Event: event.UserPromptSubmit, Prompt: prompt}})
}

// Stop runs the Stop hooks when the agent wants to end its turn. A block
// sends the reason to the model and the agent goes on, at most
// flow.MaxStopStreak times in a row.
func (s *Session) Stop(ctx context.Context) (Outcome, error) {
	return s.Report(ctx, Report{Input: event.Input{Event: event.Stop}})
}

// SessionEnd runs the SessionEnd hooks; they cannot change the conversation,
// only report errors and warnings to the user. Then the session is closed
// as soon as no other event is running on it (closeIfIdle): its transcript
// (and journal) descriptors are released, so that a server that sees many
// sessions end does not run out of descriptors, and the store loads it
// again from its file if the session is resumed (any later event on its id).
func (s *Session) SessionEnd(ctx context.Context, reason string) (Outcome, error) {
	return s.Report(ctx, Report{Input: event.Input{Event: event.SessionEnd, Reason: reason}})
}

// end is SessionEnd's Report: the hooks run, then the session is marked
// ended and closed once idle.
func (s *Session) end(ctx context.Context, r Report) (Outcome, error) {
	out, err := s.run(ctx, r.Input, r.Client, r.Ask)
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	if cerr := s.closeIfIdle(); err == nil && cerr != nil {
		err = fmt.Errorf("closing the ended session: %w", cerr)
	}
	return out, err
}

// RunHooks fires any event for wave/runHooks, with in as a hook's stdin
// has it. The typed events take their own fields from in as their typed
// methods do (the rest of in reaches the hooks as the client's input,
// Report.Client), and a tool call's fields are named as stdin names them;
// every event's rules are flow's (flow.After documents them).
func (s *Session) RunHooks(ctx context.Context, in event.Input, ask AskFunc) (Outcome, error) {
	return s.report(ctx, Report{Input: ownFields(in), Client: in, Ask: ask}, flow.StdinToolCall)
}

// ownFields is the part of a stdin-shaped input that a typed event takes as
// its own fields; any other event takes all of in.
func ownFields(in event.Input) event.Input {
	switch in.Event {
	case event.SessionStart:
		return event.Input{Event: in.Event, Source: in.Source}
	case event.UserPromptSubmit:
		return event.Input{Event: in.Event, Prompt: in.Prompt}
	case event.PreToolUse, event.PostToolUse:
		return event.Input{Event: in.Event, ToolName: in.ToolName, ToolInput: in.ToolInput,
			ToolUseID: in.ToolUseID, ToolResponse: in.ToolResponse}
	case event.Stop:
		return event.Input{Event: in.Event}
	case event.SessionEnd:
		return event.Input{Event: in.Event, Reason: in.Reason}
	}
	return in
}
