// Command linerelay is the floor of any ACP proxy, for BenchmarkForwarding:
// it starts the agent and copies whole lines both ways, reading and writing
// as `wavehooks acp` does (a 64 KiB buffer each way, flushed whenever no
// more input is read already; a piped stdin and stdout through the
// runtime's poller, as internal/pollstdio makes them) and doing
// nothing else: no parsing, no sessions, no hooks. What the proxy costs
// over it is what its work costs; what it costs over a direct pipe is what
// a process in between costs.
//
// With LINERELAY_RECORD set to a file, it is also the floor of a proxy
// that must know what it forwards and keep it, as a transcript does: each
// line is decoded as far as the routing fields an ACP proxy reads (id,
// method, the session and, in an update, its kind and tool call id) and
// appended to that file, in the same buffered writes as the lines sent.
//
//	linerelay AGENT [ARGS…]
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/wavehooks/wavehooks/internal/pollstdio"
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
	stdin, stdout := pollstdio.Pollable(os.Stdin), pollstdio.Pollable(os.Stdout)
	var record io.Writer // nil: only copy
	if path := os.Getenv("LINERELAY_RECORD"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		record = f // both directions append to it: an *os.File is safe for that, and O_APPEND keeps each write whole
	}
	done := make(chan struct{})
	go func() {
		relay(stdin, in, record)
		_ = in.Close()
	}()
	go func() {
		relay(out, stdout, record)
		close(done)
	}()
	<-done
	_ = cmd.Wait()
}

// relay copies r to w line by line until r ends; with record, it also
// decodes each line's routing fields and appends the line there.
func relay(r io.Reader, w io.Writer, record io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	var rec *bufio.Writer
	if record != nil {
		rec = bufio.NewWriterSize(record, 64<<10)
	}
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if rec != nil {
				var m routing
				_ = json.Unmarshal(line, &m) // what it is decides nothing here: the cost is the point
				_, _ = rec.Write(line)
			}
			if _, werr := bw.Write(line); werr != nil {
				return
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			_ = bw.Flush()
			return
		}
		if br.Buffered() == 0 {
			if bw.Flush() != nil {
				return
			}
			if rec != nil {
				_ = rec.Flush()
			}
		}
	}
}

// routing is what an ACP proxy must read of each message to route it.
type routing struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			ToolCallID    string `json:"toolCallId"`
		} `json:"update"`
	} `json:"params"`
}
