package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// probeServe starts `server serve` as the wavehooks extensions do, with the
// probe hook in a temporary wave home, and sends what an extension sends
// for one tool call: initialize, wave/sessionStart, wave/preToolUse (a Read
// of the probe's file), then shutdown and exit.
func probeServe(ctx context.Context, o Options, server string) (Status, string) {
	d, err := newProbeDir()
	if err != nil {
		return NotProbed, "cannot make a temporary directory: " + err.Error()
	}
	defer d.close()
	waveHome := filepath.Join(d.root, "wave")
	if err := os.Mkdir(waveHome, 0o700); err != nil {
		return NotProbed, err.Error()
	}
	if err := os.WriteFile(filepath.Join(waveHome, "settings.json"), probeSettings(), 0o600); err != nil {
		return NotProbed, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.Command(server, "serve")
	cmd.Dir = d.project
	cmd.Env = d.env(o)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return NotProbed, err.Error()
	}
	out, outW, err := os.Pipe()
	if err != nil {
		return NotProbed, err.Error()
	}
	defer out.Close()
	cmd.Stdout = outW
	err = startGroup(cmd)
	outW.Close()
	if err != nil {
		return NotProbed, "cannot start " + server + " serve: " + err.Error()
	}
	c := lspClient{in: in, msgs: make(chan acpMessage, 16)}
	readerDone := make(chan struct{})
	go func() { defer close(readerDone); c.read(out) }()
	talk := c.talk(ctx, d)
	go func() {
		for range c.msgs { // what comes after the answer is not read
		}
	}()
	_ = in.Close()
	exitCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	ran := waitGroup(exitCtx, cmd, 2*time.Second)
	stop()
	finishReading(out, readerDone)
	if talk != nil {
		ran = talk
	}
	return d.verdict(tilde(o.Home, server)+" serve, sent wave/preToolUse for a Read as an extension does", ran, stderr.Bytes())
}

// lspClient is the extension's side of `wavehooks serve`: LSP framing
// (Content-Length headers), JSON-RPC inside.
type lspClient struct {
	in     io.Writer
	msgs   chan acpMessage
	nextID int
}

func (c *lspClient) read(out io.Reader) {
	defer close(c.msgs)
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
		var m acpMessage
		if json.Unmarshal(body, &m) == nil {
			c.msgs <- m
		}
	}
}

func (c *lspClient) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

// call sends a request and answers the server's own requests (progress,
// configuration) with null until its answer comes.
func (c *lspClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
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
				return nil, fmt.Errorf("%s: the server exited", method)
			}
			switch {
			case m.Method != "" && len(m.ID) > 0:
				if err := c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil}); err != nil {
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

func (c *lspClient) talk(ctx context.Context, d *probeDir) error {
	root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(d.project)}).String()
	if _, err := c.call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": filepath.Join(d.root, "wave"), "trustWorkspaceHooks": true}}); err != nil {
		return err
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		return err
	}
	const session = "wavehooks-doctor-probe"
	if _, err := c.call(ctx, "wave/sessionStart", map[string]any{"sessionId": session, "source": "startup"}); err != nil {
		return err
	}
	if _, err := c.call(ctx, "wave/preToolUse", map[string]any{"sessionId": session, "toolUseId": "toolu_wavehooks_doctor",
		"toolName": "Read", "toolInput": map[string]any{"file_path": d.target}}); err != nil {
		return err
	}
	if _, err := c.call(ctx, "shutdown", nil); err != nil {
		return err
	}
	return c.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
}
