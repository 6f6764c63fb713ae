package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// rpcMessage is one JSON-RPC message, in either framing.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// rpcClient is the doctor's side of a JSON-RPC peer on a process's stdio:
// an ACP editor in front of `wavehooks acp` (a message a line) or an
// extension in front of `wavehooks serve` (LSP's Content-Length headers).
// The two probes differ only in the framing, how the peer's own requests
// are answered and what they say to it.
type rpcClient struct {
	in     io.Writer
	msgs   chan rpcMessage
	nextID int
	// lspFraming: Content-Length headers; else one message a line.
	lspFraming bool
	// reply is the whole answer to a request of the peer's.
	reply func(m rpcMessage) map[string]any
	// peer names the process in an error when its output ends.
	peer string
}

// read passes each message the peer writes to msgs until its output ends.
func (c *rpcClient) read(out io.Reader) {
	defer close(c.msgs)
	if c.lspFraming {
		c.readHeaders(out)
		return
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m rpcMessage
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			c.msgs <- m
		}
	}
	_, _ = io.Copy(io.Discard, out)
}

// readHeaders is read in LSP's framing.
func (c *rpcClient) readHeaders(out io.Reader) {
	r := bufio.NewReader(out)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				_, _ = io.Copy(io.Discard, r)
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
				length, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if length < 0 || length > 64<<20 {
			_, _ = io.Copy(io.Discard, r)
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m rpcMessage
		if json.Unmarshal(body, &m) == nil {
			c.msgs <- m
		}
	}
}

// send writes one message in the client's framing.
func (c *rpcClient) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if c.lspFraming {
		_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	} else {
		_, err = c.in.Write(append(b, '\n'))
	}
	return err
}

// call sends a request and answers the peer's own requests (reply) until
// its answer comes.
func (c *rpcClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.nextID++
	id := c.nextID
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", method, errTimedOut)
		case m, ok := <-c.msgs:
			if !ok {
				return nil, fmt.Errorf("%s: %s exited", method, c.peer)
			}
			switch {
			case m.Method != "" && len(m.ID) > 0:
				if err := c.send(c.reply(m)); err != nil {
					return nil, err
				}
			case m.Method == "" && string(m.ID) == fmt.Sprint(id):
				if len(m.Error) > 0 {
					return nil, fmt.Errorf("%s: %s", method, m.Error)
				}
				return m.Result, nil
			}
		}
	}
}

// talkTo starts cmd (its stdout a pipe of our own, not StdoutPipe: its
// reader runs until every process of the group let go of it, after Wait),
// lets talk speak to it through c, then closes its stdin as a client that
// quits and waits for its process group. It returns talk's error when
// there is one, else how the process ended; start is the error of a
// process that could not be started.
func talkTo(cmd *exec.Cmd, c *rpcClient, talk func(c *rpcClient) error) (ran, start error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd.Stdout = outW
	err = startGroup(cmd)
	outW.Close()
	if err != nil {
		return nil, err
	}
	c.in, c.msgs = in, make(chan rpcMessage, 16)
	readerDone := make(chan struct{})
	go func() { defer close(readerDone); c.read(out) }()
	said := talk(c)
	go func() {
		for range c.msgs { // what comes after the answer is not read
		}
	}()
	_ = in.Close()
	exitCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	ran = waitGroup(exitCtx, cmd, 2*time.Second)
	stop()
	finishReading(out, readerDone)
	if said != nil {
		ran = said
	}
	return ran, nil
}
