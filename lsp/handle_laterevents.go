package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

// postToolBatch fires PostToolBatch once for a batch of parallel tool calls
// the session recorded, named by their tool use ids, and answers like
// wave/postToolUse: blocked (stop before the next model call), reason,
// additionalContext.
func (s *Server) postToolBatch(ctx context.Context, p *PostToolBatchParams) (*FlowResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if len(p.ToolUseIDs) == 0 {
		return nil, badParam("toolUseIds", "must name the batch's tool calls")
	}
	for _, id := range p.ToolUseIDs {
		if _, ok := sess.ToolCall(id); !ok {
			return nil, badParam("toolUseIds", "the session has no tool call %q", id)
		}
	}
	out, err := s.event(ctx, sess, event.PostToolBatch, "", "PostToolBatch hooks", func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
		return sess.PostToolBatch(ctx, p.ToolUseIDs)
	})
	if err != nil {
		return nil, err
	}
	return wire.Flow(out), nil
}

// didChangeWorkspaceFolders fires DirectoryAdded (source
// "workspace_folder") for each folder the editor added.
func (s *Server) didChangeWorkspaceFolders(_ context.Context, p *protocol.DidChangeWorkspaceFoldersParams) {
	var ins []event.Input
	for _, f := range p.Event.Added {
		dir, ok := localPath(f.URI)
		if !ok {
			s.log.Debug("ignoring a workspace folder that is not a local directory", "uri", f.URI)
			continue
		}
		raw, _ := json.Marshal(dir)
		ins = append(ins, event.Input{Event: event.DirectoryAdded, Source: "workspace_folder",
			Extra: map[string]json.RawMessage{"directory": raw}})
	}
	s.goObserved(ins...)
}
