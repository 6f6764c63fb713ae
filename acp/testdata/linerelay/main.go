// Command linerelay is the floor of any ACP proxy, for BenchmarkForwarding:
// it starts the agent and copies whole lines both ways, reading and writing
// as `wavehooks acp` does (a 64 KiB buffer each way, flushed whenever no
// more input is read already; a piped stdin and stdout through the
// runtime's poller, as cmd/wavehooks's pollable makes them) and doing
// nothing else: no parsing, no sessions, no hooks. What the proxy costs
// over it is what its work costs; what it costs over a direct pipe is what
// a process in between costs.
//
//	linerelay AGENT [ARGS…]
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: linerelay AGENT [ARGS…]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stdin, stdout := pollable(os.Stdin), pollable(os.Stdout)
	done := make(chan struct{})
	go func() {
		relay(stdin, in)
		_ = in.Close()
	}()
	go func() {
		relay(out, stdout)
		close(done)
	}()
	<-done
	_ = cmd.Wait()
}

// relay copies r to w line by line until r ends.
func relay(r io.Reader, w io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if _, werr := bw.Write(line); werr != nil {
				return
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			_ = bw.Flush()
			return
		}
		if br.Buffered() == 0 && bw.Flush() != nil {
			return
		}
	}
}
