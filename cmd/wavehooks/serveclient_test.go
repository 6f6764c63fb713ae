package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/internal/proctest"
)

// procClient drives a `wavehooks serve` process over its stdin and stdout
// with concurrent requests, for the crash and disk fault tests. It answers
// the server's own requests with a null result and ignores notifications.
type procClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	wmu sync.Mutex
	seq atomic.Int64

	mu     sync.Mutex
	wait   map[string]chan procResponse
	stderr proctest.Output
	done   chan struct{} // closed when stdout ends
}

type procResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *procError      `json:"error"`
}

type procError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *procError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

var errConnectionEnded = errors.New("the server's output ended")

// startProc starts cmd (a wavehooks serve command line) and reads its output.
func startProc(t testing.TB, cmd *exec.Cmd) *procClient {
	t.Helper()
	c := &procClient{cmd: cmd, wait: map[string]chan procResponse{}, done: make(chan struct{})}
	var err error
	if c.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.readLoop(bufio.NewReaderSize(out, 64<<10))
	return c
}

func (c *procClient) readLoop(r *bufio.Reader) {
	defer close(c.done)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		if length < 0 {
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			procResponse
		}
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		if m.Method != "" {
			if len(m.ID) > 0 {
				answer := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID)
				go func() { _ = c.write(answer) }()
			}
			continue
		}
		c.mu.Lock()
		ch := c.wait[string(m.ID)]
		delete(c.wait, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m.procResponse
		}
	}
}

func (c *procClient) write(body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// call sends a request and waits for its answer; a JSON-RPC error comes
// back as *procError, a server that went away as errConnectionEnded.
func (c *procClient) call(method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id := strconv.FormatInt(c.seq.Add(1), 10)
	ch := make(chan procResponse, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	if err := c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p)); err != nil {
		return nil, errConnectionEnded
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	case <-c.done:
		select {
		case r := <-ch: // answered just before the end
			if r.Error != nil {
				return nil, r.Error
			}
			return r.Result, nil
		default:
			return nil, errConnectionEnded
		}
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer within a minute", method)
	}
}

// initialize initializes the server for a project directory.
func (c *procClient) initialize(project string) error {
	if _, err := c.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + project, "capabilities": map[string]any{}}); err != nil {
		return err
	}
	return c.write([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
}

// stop closes the server's stdin and waits for it to exit.
func (c *procClient) stop(t testing.TB) {
	t.Helper()
	_ = c.in.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		t.Errorf("the server did not exit after its stdin closed; stderr:\n%s", c.stderr.String())
		<-c.done
	}
	_ = c.cmd.Wait()
}

// kill ends the server with SIGKILL and waits until its output is read to the end.
func (c *procClient) kill() {
	_ = c.cmd.Process.Kill()
	<-c.done
	_ = c.cmd.Wait()
}
