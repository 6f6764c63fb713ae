//go:build !windows && (!linux || wavehooks_nomemfd)

package proc

import "os"

// NewMemFile returns an unlinked temporary file where memfd does not exist
// (macOS), and on Linux built with -tags wavehooks_nomemfd, which is how
// this path is tested (make test-fallback).
func NewMemFile(name string) (*os.File, error) { return newTempFile(name) }

// sealInput does nothing: only memfds can be sealed.
func sealInput(*os.File) {}

// stopGrowth cannot stop a temporary file from growing: a hook's background
// child may write to it after the hook exited (docs/security.md).
func stopGrowth(*os.File) bool { return false }

// sealOutput does nothing: only memfds can be sealed.
func sealOutput(*os.File) {}

// SealScript cannot seal: the copy of a script a hook runs is an unlinked
// temporary file, which no path leads to (pinscript.go).
func SealScript(*os.File) bool { return false }
