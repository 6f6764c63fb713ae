//go:build !unix

package main

import "os"

// pollable leaves f as it is where there is no non-blocking duplicate to make.
func pollable(f *os.File) *os.File { return f }
