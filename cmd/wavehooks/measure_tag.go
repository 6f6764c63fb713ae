//go:build wavehooks_measure_nosave || wavehooks_measure_nowatch

package main

import "os"

// A build with a measuring tag (docs/performance.md, "The hooked call
// against a process") gives up a guarantee to measure what it costs; it
// says so on stderr at every start, so that it is never mistaken for a
// release.
func init() {
	_, _ = os.Stderr.WriteString("wavehooks: a measuring build (wavehooks_measure_* tag): transcripts may not be written or watched; do not use it\n")
}
