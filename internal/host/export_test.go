package host

import "time"

// SetRacyMargin shortens how long before a load its inputs must have
// changed for ReloadIfChanged to trust their stamps, so that a test need
// not wait a second before the stamps count.
func SetRacyMargin(w *Workspace, d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.margin = d
}

// SetTimeGranularity makes ReloadIfChanged see file times truncated to g,
// as on a file system whose times are that coarse (HFS+, ext3: a second),
// where two writes within one tick leave the same times.
func SetTimeGranularity(w *Workspace, g time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.grain = g
}
