//go:build !unix

package pollstdio

import "os"

// Pollable leaves f as it is where there is no non-blocking duplicate to
// make.
func Pollable(f *os.File) *os.File { return f }
