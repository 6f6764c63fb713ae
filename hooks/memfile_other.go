//go:build !linux

package hooks

import "os"

// newMemFile returns an unlinked temporary file where memfd does not exist.
func newMemFile(name string) (*os.File, error) { return newTempFile(name) }
