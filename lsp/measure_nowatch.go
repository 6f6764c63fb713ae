//go:build wavehooks_measure_nowatch

package lsp

// measureNoWatch, set only by the wavehooks_measure_nowatch build tag, keeps
// the server from watching the sessions directory, so that its own transcript
// writes wake no watcher: the build measures what that wake-up costs a serve
// request (docs/performance.md, "The hooked call against a process"). Such a
// build misses other processes' changes to a session: it is for that
// measurement alone, and no Makefile target sets the tag.
const measureNoWatch = true
