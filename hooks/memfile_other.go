//go:build !windows && (!linux || wavehooks_nomemfd)

package hooks

import "os"

// newMemFile returns an unlinked temporary file where memfd does not exist
// (macOS), and on Linux built with -tags wavehooks_nomemfd, which is how
// this path is tested (make test-fallback).
func newMemFile(name string) (*os.File, error) { return newTempFile(name) }
