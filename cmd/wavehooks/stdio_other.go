//go:build !unix

package main

import "os"

// pollable returns f: only unix pipes are switched to the runtime's poller.
func pollable(f *os.File) *os.File { return f }
