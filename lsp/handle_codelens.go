package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// codeLens puts "Run hook" above every hook command of a settings file,
// and "▶ Run tests" on a hook test case file (handle_hooktests.go).
func (s *Server) codeLens(_ context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	path, err := documentPath(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	if tl, ok := s.testLenses(path); ok {
		return tl, nil // a hook test case file: "▶ Run tests"
	}
	lenses := []protocol.CodeLens{}
	if !s.isSettingsFile(path) {
		return lenses, nil
	}
	for i, h := range s.engine.Config().Hooks {
		if h.File != path {
			continue
		}
		lenses = append(lenses, protocol.CodeLens{Range: toRange(h.CommandRange), Command: &protocol.Command{
			Title: "▶ Run hook (" + string(h.Event) + ")", Command: commandRunHook, Arguments: []any{path, float64(i)}}})
	}
	return lenses, nil
}

// RunHookResult is what a hook did with sample input, for "Run hook".
type RunHookResult struct {
	Event   event.Event `json:"event"`
	Command string      `json:"command"`
	Stdin   string      `json:"stdin"`
	Outcome string      `json:"outcome"`
	Run     hooks.Run   `json:"run"`
}

// runHookCommand runs one configured hook with sample input for its event and
// shows the outcome. The client names the hook by settings file and index, so
// only commands from the saved configuration ever run, and the workspace's
// only once trusted.
func (s *Server) runHookCommand(ctx context.Context, args []any) (*RunHookResult, error) {
	if len(args) != 2 {
		return nil, badParam("arguments", "wave.runHook takes [settingsFile, hookIndex]")
	}
	file, _ := args[0].(string)
	idx, ok := args[1].(float64)
	l := s.engine.Loaded()
	hs := l.Config.Hooks
	if !ok || idx < 0 || int(idx) >= len(hs) || float64(int(idx)) != idx || hs[int(idx)].File != filepath.Clean(file) {
		return nil, badParam("arguments", "no hook %v in %q; the settings may have changed", args[1], file)
	}
	h := hs[int(idx)]
	if h.Source.FromWorkspace() {
		if ok, why := l.Check(); !ok {
			if l.Stale() {
				s.onStale()
			}
			return nil, fmt.Errorf("this hook does not run: %s; trust the workspace first", why)
		}
	}
	in := hooks.SampleInput(h.Event, "sample", filepath.Join(s.store.Dir(), "session_sample.json"), s.root)
	res := s.engine.FireHook(ctx, h, in)
	command := h.Command
	if h.Type != settings.TypeCommand {
		command = h.Display() // POST <url>, prompt: …, mcp_tool server/tool
	}
	out := &RunHookResult{Event: h.Event, Command: command, Stdin: string(res.Stdin), Outcome: hooks.Summary(&res)}
	if len(res.Runs) == 1 {
		out.Run = res.Runs[0]
	}
	s.recordRun("", in.MatchValue(), &res)
	msgType := protocol.MessageTypeInfo
	if len(res.Errors) > 0 {
		msgType = protocol.MessageTypeError
	}
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: msgType,
		Message: fmt.Sprintf("%s hook `%s`: %s", h.Event, safetext.Line(h.Display(), promptItemRunes), safetext.Line(out.Outcome, promptReasonRune))})
	return out, nil
}
