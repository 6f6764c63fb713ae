package main

import (
	"io"
	"os"
	"os/exec"
	"testing"
)

// startPiped starts cmd as an editor starts a server or an agent: its stdin
// and stdout on pipes, which it returns, and its stderr the test's unless
// cmd sets one.
func startPiped(tb testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.Reader) {
	tb.Helper()
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return in, out
}
