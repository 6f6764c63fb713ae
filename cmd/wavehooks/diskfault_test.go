//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/wavehooks/wavehooks/session"
)

// The disk filling up and the sessions directory being read-only, for the
// real server process. Tests here run as root, which no permission bit
// stops, so the faults are made the way the kernel makes them for everyone:
//
//   - a file size limit (RLIMIT_FSIZE, set on the running server with
//     prlimit): writes past it fail with EFBIG after writing what fits,
//     exactly like a disk that fills up in the middle of a write;
//   - where mount namespaces are allowed (root), a 256 KiB tmpfs mounted
//     on the sessions directory in the server's own namespace: ENOSPC;
//   - a read-only bind mount of the sessions directory (root), or mode 0500
//     for everyone else: EROFS or EACCES.
//
// In each case the editor must get a clear JSON-RPC error, the file on
// disk must stay the last complete version after every failed save (it
// parses, with jq too, and holds exactly the acknowledged messages: never
// a torn tail), the session must go on once there is room again, and the
// files must hold every acknowledged message and nothing else. The full-
// disk tests run for both transcript formats.

// mountNamespaces reports whether this process may mount a tmpfs in a new
// mount namespace.
func mountNamespaces(t *testing.T) bool {
	if _, err := exec.LookPath("unshare"); err != nil {
		return false
	}
	dir := t.TempDir()
	return exec.Command("unshare", "-m", "sh", "-c", `mount -t tmpfs -o size=64k tmpfs "$1"`, "sh", dir).Run() == nil
}

// transcriptFormats are the session file formats the full-disk tests run
// with, as the user's settings.json that selects each.
var transcriptFormats = []struct{ name, settings string }{
	{"json", `{}`},
	{"jsonl", `{"transcriptFormat": "jsonl"}`},
}

// fill writes to a session until writes fail, checks the errors and the
// file on disk (read by onDisk) after each failure, makes room, and writes
// once more. It returns the acknowledged messages in order.
func fill(t *testing.T, c *procClient, id, wantErr string, onDisk func() ([]byte, error), makeRoom func()) []string {
	t.Helper()
	var acked []string
	say := func(n, size int) error {
		text := fmt.Sprintf("message %d %s", n, strings.Repeat("y", size))
		method, role := "wave/userPromptSubmit", "user"
		params := map[string]any{"sessionId": id, "prompt": text}
		if n%2 == 1 {
			method, role = "wave/addAssistantMessage", "assistant"
			params = map[string]any{"sessionId": id, "blocks": []any{map[string]any{"type": "text", "content": text}}}
		}
		_, err := c.call(method, params)
		if err == nil {
			acked = append(acked, role+":"+text)
		}
		return err
	}
	n, failures := 0, 0
	for ; n < 1000 && failures < 12; n++ {
		err := say(n, 6000+n%7*1000)
		if err == nil {
			require.Zero(t, failures, "a write succeeded after writes failed and before room was made")
			continue
		}
		failures++
		var rpcErr *procError
		require.ErrorAs(t, err, &rpcErr)
		require.Equal(t, -32603, rpcErr.Code)
		require.Contains(t, rpcErr.Message, wantErr)
		require.Contains(t, rpcErr.Message, "the file keeps its last complete version")
		if failures == 1 {
			t.Logf("first failure after %d messages: %s", len(acked), rpcErr.Message)
		}
		data, err := onDisk()
		require.NoError(t, err)
		requireTranscript(t, data, acked)
	}
	require.Equal(t, 12, failures, "the writes never failed")
	// Reading goes on from memory, without the messages that failed.
	raw, err := c.call("wave/getSession", map[string]any{"sessionId": id})
	require.NoError(t, err)
	var got struct{ Messages []session.Message }
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Len(t, got.Messages, len(acked), "messages whose write failed are still in the session")

	makeRoom()
	require.NoError(t, say(n, 100), "no write succeeds once there is room again")
	require.NoError(t, say(n+1, 100))
	return acked
}

// requireSessionHolds loads a session with the session package and checks
// it holds exactly the acknowledged messages.
func requireSessionHolds(t *testing.T, home, id string, acked []string) {
	t.Helper()
	st, err := session.NewStore(session.Options{WaveHome: home})
	require.NoError(t, err)
	defer st.Close()
	s, err := st.Open(id)
	require.NoError(t, err)
	var got []string
	for _, m := range s.Messages() {
		for _, b := range m.Blocks {
			got = append(got, m.Role+":"+b.Content)
		}
	}
	require.Equal(t, acked, got)
}

// startSessionOn starts a session and returns its transcript path.
func startSessionOn(t *testing.T, c *procClient, id string) string {
	t.Helper()
	raw, err := c.call("wave/sessionStart", map[string]any{"sessionId": id})
	require.NoError(t, err)
	var r struct {
		TranscriptPath string `json:"transcriptPath"`
	}
	require.NoError(t, json.Unmarshal(raw, &r))
	return r.TranscriptPath
}

// requireTranscript parses a transcript as a hook would — jq on the json
// file's .state.messages, or on every line of a jsonl one — and checks it
// holds exactly the acknowledged messages, in order.
func requireTranscript(t *testing.T, data []byte, acked []string) {
	t.Helper()
	var got []string
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`{"id"`)) {
		jq := exec.Command("jq", "-e", "-c", ".state.messages | length")
		jq.Stdin = bytes.NewReader(data)
		out, err := jq.CombinedOutput()
		require.NoError(t, err, "jq cannot read the session file: %s\n%s", out, tail(data))
		var f struct {
			State struct{ Messages []session.Message } `json:"state"`
		}
		require.NoError(t, json.Unmarshal(data, &f), tail(data))
		for _, m := range f.State.Messages {
			for _, b := range m.Blocks {
				got = append(got, m.Role+":"+b.Content)
			}
		}
	} else {
		jq := exec.Command("jq", "-e", "-s", "-c", "length")
		jq.Stdin = bytes.NewReader(data)
		out, err := jq.CombinedOutput()
		require.NoError(t, err, "jq cannot read the transcript: %s\n%s", out, tail(data))
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var m struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			require.NoError(t, json.Unmarshal(line, &m), "a torn line: %q", tail(line))
			var text string
			if json.Unmarshal(m.Content, &text) != nil {
				var blocks []struct{ Text string }
				require.NoError(t, json.Unmarshal(m.Content, &blocks))
				for _, b := range blocks {
					text += b.Text
				}
			}
			got = append(got, m.Role+":"+text)
		}
	}
	require.Equal(t, len(acked), len(got), "the file does not hold exactly the acknowledged messages")
	require.Equal(t, acked, got)
}

// tail is the end of a file, for messages about it.
func tail(b []byte) string {
	if len(b) > 200 {
		b = b[len(b)-200:]
	}
	return string(b)
}

func TestServeFileSizeLimit(t *testing.T) {
	for _, format := range transcriptFormats {
		t.Run(format.name, func(t *testing.T) {
			env := newCLIEnv(t, format.settings)
			home, project := env.home, env.project
			cmd := exec.Command(e2eBinary(t), "serve", "--wave-home", home)
			cmd.Dir = project
			c := startProc(t, cmd)
			require.NoError(t, c.initialize(project))
			path := startSessionOn(t, c, "full-fsize")
			require.Contains(t, path, "."+format.name)

			pid := cmd.Process.Pid
			var old unix.Rlimit
			require.NoError(t, unix.Prlimit(pid, unix.RLIMIT_FSIZE, nil, &old))
			limit := old
			limit.Cur = 256 << 10
			require.NoError(t, unix.Prlimit(pid, unix.RLIMIT_FSIZE, &limit, nil))
			acked := fill(t, c, "full-fsize", "file too large", func() ([]byte, error) { return os.ReadFile(path) }, func() {
				require.NoError(t, unix.Prlimit(pid, unix.RLIMIT_FSIZE, &old, nil))
			})
			c.stop(t)
			requireSessionHolds(t, home, "full-fsize", acked)
		})
	}
}

func TestServeDiskFull(t *testing.T) {
	if !mountNamespaces(t) {
		t.Skip("cannot mount a tmpfs in a new mount namespace here (needs root); TestServeFileSizeLimit covers full writes")
	}
	for _, format := range transcriptFormats {
		t.Run(format.name, func(t *testing.T) {
			env := newCLIEnv(t, format.settings)
			home, project, out := env.home, env.project, t.TempDir()
			sessions := filepath.Join(home, "sessions")
			require.NoError(t, os.Mkdir(sessions, 0o700))
			// The server runs in its own mount namespace on a 256 KiB tmpfs;
			// the test reads the files there through /proc/PID/root, and when
			// the server ends, the shell copies them out for checking.
			cmd := exec.Command("unshare", "-m", "sh", "-c",
				`mount -t tmpfs -o size=256k tmpfs "$1/sessions" || exit 99; "$2" serve --wave-home "$1"; cp -a "$1/sessions/." "$3/"`,
				"sh", home, e2eBinary(t), out)
			cmd.Dir = project
			c := startProc(t, cmd)
			require.NoError(t, c.initialize(project), c.stderr.String())
			path := startSessionOn(t, c, "full-tmpfs")
			inNamespace := fmt.Sprintf("/proc/%d/root%s", cmd.Process.Pid, path)
			acked := fill(t, c, "full-tmpfs", "no space left on device", func() ([]byte, error) { return os.ReadFile(inNamespace) }, func() {
				grow := exec.Command("nsenter", "-t", strconv.Itoa(cmd.Process.Pid), "-m", "mount", "-o", "remount,size=8m", sessions)
				outp, err := grow.CombinedOutput()
				require.NoError(t, err, "%s", outp)
			})
			c.stop(t)
			require.NoError(t, os.Remove(sessions))
			require.NoError(t, os.Rename(out, sessions))
			requireSessionHolds(t, home, "full-tmpfs", acked)
		})
	}
}

func TestServeReadOnlySessions(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	sessions := filepath.Join(home, "sessions")

	// A session written while the directory was writable.
	c := startProc(t, withDir(exec.Command(e2eBinary(t), "serve", "--wave-home", home), project))
	require.NoError(t, c.initialize(project))
	startSessionOn(t, c, "read-only-1")
	_, err := c.call("wave/userPromptSubmit", map[string]any{"sessionId": "read-only-1", "prompt": "before"})
	require.NoError(t, err)
	c.stop(t)
	before := snapshot(t, sessions)

	var cmd *exec.Cmd
	wantErr := "permission denied"
	switch {
	case os.Geteuid() != 0:
		require.NoError(t, os.Chmod(sessions, 0o500))
		t.Cleanup(func() { _ = os.Chmod(sessions, 0o700) })
		for name := range before {
			require.NoError(t, os.Chmod(filepath.Join(sessions, name), 0o400))
		}
		cmd = exec.Command(e2eBinary(t), "serve", "--wave-home", home)
	case mountNamespaces(t):
		wantErr = "read-only file system"
		cmd = exec.Command("unshare", "-m", "sh", "-c",
			`mount --bind "$1/sessions" "$1/sessions" && mount -o remount,bind,ro "$1/sessions" || exit 99; exec "$2" serve --wave-home "$1"`,
			"sh", home, e2eBinary(t))
	default:
		t.Skip("running as root without mount namespaces: nothing here makes a directory read-only for root")
	}
	c = startProc(t, withDir(cmd, project))
	require.NoError(t, c.initialize(project), c.stderr.String())
	// What was written can still be read: resumed, shown, sent to the model.
	_, err = c.call("wave/sessionStart", map[string]any{"sessionId": "read-only-1", "source": "resume"})
	require.NoError(t, err, "resuming writes nothing when no hook adds to the session")
	got, err := c.call("wave/getSession", map[string]any{"sessionId": "read-only-1"})
	require.NoError(t, err)
	require.Contains(t, string(got), `"content":"before"`)
	_, err = c.call("wave/apiMessages", map[string]any{"sessionId": "read-only-1"})
	require.NoError(t, err)
	// What would change it fails with the reason, and changes nothing.
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"wave/sessionStart", map[string]any{}},
		{"wave/userPromptSubmit", map[string]any{"sessionId": "read-only-1", "prompt": "after"}},
	} {
		_, err := c.call(call.method, call.params)
		var rpcErr *procError
		require.True(t, errors.As(err, &rpcErr), "%s: want a JSON-RPC error, got %v", call.method, err)
		t.Logf("%s: %s", call.method, rpcErr.Message)
		require.Contains(t, rpcErr.Message, wantErr, call.method)
		require.Equal(t, -32603, rpcErr.Code, "%s: a file the server cannot write is not the editor's mistake", call.method)
	}
	c.stop(t)
	require.Equal(t, before, snapshot(t, sessions), "the read-only files changed")
}

func withDir(cmd *exec.Cmd, dir string) *exec.Cmd {
	cmd.Dir = dir
	return cmd
}

// snapshot reads every file of a directory.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(b)
	}
	return out
}
