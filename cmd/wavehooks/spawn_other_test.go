//go:build !unix

package main

import "testing"

// spawnExec has no vfork-style start to measure here.
func spawnExec(b *testing.B) { b.Skip("no fork/exec on this system") }
