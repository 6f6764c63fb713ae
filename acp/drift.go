package acp

// Drift through the editor (issue #38 item 4; settings/drift.go): a hook
// that something other than wavehooks or the user's editor added to or
// changed in the user's own settings is told to the editor once, as a
// proxy notice in the session that first opens after it appeared (the
// same path as the untrusted-workspace notice), and recorded as reported.

// reportDrift sends the drift not reported before as warning notices in
// st's session and records it as reported. Each workspace reports at most
// once per proxy run: its loaded configuration keeps its drift after the
// record changed.
func (p *Proxy) reportDrift(st *sessState) {
	w := st.ws
	w.mu.Lock()
	first := !w.driftReported
	w.driftReported = true
	w.mu.Unlock()
	if !first {
		return
	}
	cfg := w.Engine.Config()
	drift := cfg.NewDrift()
	for _, d := range drift {
		p.notice(st, levelWarning, cfg.DriftMessage(d))
	}
	if err := cfg.MarkDriftReported(); err != nil {
		p.log.Warn("drift record", "err", err)
	}
}
