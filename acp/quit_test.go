//go:build unix

package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue #26: "The SessionEnd reason on editor quit is prompt_input_exit on
// some runs and other on others." An editor that quits closes the proxy's
// stdin and signals the proxy's process tree (Neovim sends SIGTERM to the
// whole tree), so the proxy sees its stdin end, its own signal and the
// agent's death in any order. Every order is the editor quitting:
// prompt_input_exit. Only an agent that ends while the editor stays is
// "other". Each order is driven explicitly, and all three at once many
// times.
func TestSessionEndReasonOnEditorQuitIsTheSameInEveryOrder(t *testing.T) {
	type quit struct {
		editorIn io.Closer
		cancel   context.CancelFunc
		p        *Proxy
	}
	closeStdin := func(q *quit) { _ = q.editorIn.Close() }
	signal := func(q *quit) { q.cancel() } // what SIGTERM does (cmd/wavehooks/acp.go)
	agentDies := func(q *quit) {
		q.p.agent.signal(syscall.SIGKILL)
		<-q.p.agent.exited
	}
	for _, c := range []struct {
		name   string
		events []func(*quit) // in this order, each done before the next
		atOnce bool          // the events at the same moment instead
		grace  time.Duration // how long the proxy waits for the editor after the agent ended
		want   string
	}{
		{name: "the editor closes stdin", events: []func(*quit){closeStdin}, grace: time.Hour, want: "prompt_input_exit"},
		{name: "the editor signals the proxy", events: []func(*quit){signal}, grace: time.Hour, want: "prompt_input_exit"},
		{name: "the agent dies, then the editor closes stdin", events: []func(*quit){agentDies, closeStdin}, grace: time.Hour, want: "prompt_input_exit"},
		{name: "the agent dies, then the editor signals", events: []func(*quit){agentDies, signal}, grace: time.Hour, want: "prompt_input_exit"},
		{name: "the editor closes stdin, then the agent dies", events: []func(*quit){closeStdin, agentDies}, grace: time.Hour, want: "prompt_input_exit"},
		{name: "stdin, signal and the agent's death at once", events: []func(*quit){closeStdin, signal, agentDies}, atOnce: true, grace: time.Hour, want: "prompt_input_exit"},
		{name: "the agent dies and the editor stays", events: []func(*quit){agentDies}, grace: time.Nanosecond, want: "other"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs := 1
			if c.atOnce {
				runs = 10
			}
			for i := 0; i < runs; i++ {
				dir := t.TempDir()
				ended := filepath.Join(dir, "ended")
				end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
				home := t.TempDir()
				require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings([3]string{"SessionEnd", "", end})), 0o600))
				scriptFile := filepath.Join(dir, "script.json")
				require.NoError(t, os.WriteFile(scriptFile, []byte(`{}`), 0o600))
				opts := Options{
					Agent:    []string{scriptAgent},
					AgentEnv: append(os.Environ(), "AGENT_SCRIPT="+scriptFile, "AGENT_LOG="+filepath.Join(dir, "agent.jsonl")),
					WaveHome: home, ProjectRoot: t.TempDir(), ClaudeHome: filepath.Join(dir, "claude"),
					KillGrace: 5 * time.Second, quitGrace: c.grace,
				}
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				started := make(chan *Proxy, 1)
				done := make(chan int, 1)
				go func() {
					code := runProxy(ctx, opts, inR, outW, started)
					_ = outW.Close()
					done <- code
				}()
				p := <-started
				answers := make(chan string, 16)
				go func() {
					defer close(answers)
					sc := bufio.NewScanner(outR)
					sc.Buffer(nil, 1<<20)
					for sc.Scan() {
						answers <- sc.Text()
					}
				}()
				_, err := fmt.Fprintf(inW, "%s\n%s\n",
					`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
					`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+mustJSON(opts.ProjectRoot)+`,"mcpServers":[]}}`)
				require.NoError(t, err)
				for line := range answers {
					var m struct {
						ID     json.RawMessage `json:"id"`
						Result *struct {
							SessionID string `json:"sessionId"`
						} `json:"result"`
					}
					if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == "2" {
						require.NotNil(t, m.Result, "session/new: %s", line)
						require.NotEmpty(t, m.Result.SessionID, "the session is open: %s", line)
						break
					}
				}
				q := &quit{editorIn: inW, cancel: cancel, p: p}
				if c.atOnce {
					var wg sync.WaitGroup
					gate := make(chan struct{})
					for _, ev := range c.events {
						wg.Add(1)
						go func() { defer wg.Done(); <-gate; ev(q) }()
					}
					close(gate)
					wg.Wait()
				} else {
					for _, ev := range c.events {
						ev(q)
					}
				}
				go func() {
					for range answers { // the rest of the editor's side
					}
				}()
				<-done
				cancel()
				_ = inW.Close()
				_ = outR.Close()
				require.Equal(t, c.want+"\n", readFile(t, ended), "run %d: SessionEnd ran once, with the quit's reason", i)
			}
		})
	}
}
