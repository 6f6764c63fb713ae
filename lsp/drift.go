package lsp

import (
	"bytes"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Drift in serve (issue #38 item 4; settings/drift.go): a hook that
// something other than wavehooks or the editor added to or changed in the
// user's own settings is shown once, as a warning message (both editors
// show window/showMessage); with driftRequiresApproval a hook-drift warning
// diagnostic also stays on the hook while it waits for approval. A user settings file the editor has
// open with exactly the text on disk was saved by the editor, which is the
// user's own writing: its hooks are recorded as approved instead.

// approveEditorSaves records as approved the drifted hooks of every file
// the editor holds with the text on disk, and reports whether it did, so
// that the caller installs the configuration again (a hook waiting for
// approval may run now).
func (s *Server) approveEditorSaves(cfg *settings.Config) bool {
	done := map[string]bool{}
	for _, d := range cfg.Drift {
		h := &d.Hook
		if done[h.File] {
			continue
		}
		open, ok := s.docs.get(h.File)
		if !ok {
			continue
		}
		disk, err := settings.ReadSettingsText(h.File)
		if err != nil || !bytes.Equal(open, disk) {
			continue
		}
		if err := settings.ApproveFile(s.paths.WaveHome, h.File, h.Source, s.root); err != nil {
			s.log.Warn("drift record", "err", err)
			continue
		}
		done[h.File] = true
	}
	return len(done) > 0
}

// reportDrift shows the drift not reported before and records it as
// reported, so that it is shown once.
func (s *Server) reportDrift(cfg *settings.Config) {
	for _, d := range cfg.NewDrift() {
		s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
			Message: "Wave Hooks: " + safetext.Line(cfg.DriftMessage(d), messageRunes)})
	}
	if err := cfg.MarkDriftReported(); err != nil {
		s.log.Warn("drift record", "err", err)
	}
}
