package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/session"
)

// TestServeKilledDuringHeavyWritesKeepsAcknowledgedMessages runs the real
// `wavehooks serve` over real pipes while several sessions write as fast as
// they can (prompts and assistant messages of up to 64 KB), and kills it
// with SIGKILL at a random moment, round after round, in both transcript
// formats. Each round resumes the sessions the last one left (so the server
// repairs what the kill tore). At the end every session file loads with the
// session package and holds every message the server acknowledged, in order.
func TestServeKilledDuringHeavyWritesKeepsAcknowledgedMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the server twenty times")
	}
	bin := e2eBinary(t)
	project := t.TempDir()
	homes := map[session.Format]string{session.FormatJSON: t.TempDir(), session.FormatJSONL: t.TempDir()}
	require.NoError(t, os.WriteFile(filepath.Join(homes[session.FormatJSONL], "settings.json"), []byte(`{"transcriptFormat":"jsonl"}`), 0o644))

	const sessionsPerRound = 4
	var mu sync.Mutex
	acked := map[string][]string{} // session id → "role:text" of each acknowledged message, in order
	rng := rand.New(rand.NewPCG(20, 26))
	deadline := time.Now().Add(20 * time.Second)
	rounds, requests, torn, journals := 0, 0, 0, 0
	for round := 0; round < 20 && time.Now().Before(deadline); round++ {
		format := []session.Format{session.FormatJSON, session.FormatJSONL}[round%2]
		cmd := exec.Command(bin, "serve", "--wave-home", homes[format])
		cmd.Dir = project
		c := startProc(t, cmd)
		require.NoError(t, c.initialize(project), "round %d: %s", round, c.stderr.String())

		var wg sync.WaitGroup
		for k := 0; k < sessionsPerRound; k++ {
			id := fmt.Sprintf("kill-%s-%d", format, k)
			seed := rng.Uint64()
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, 1))
				if _, err := c.call("wave/sessionStart", map[string]any{"sessionId": id, "source": "resume"}); err != nil {
					return
				}
				for n := 0; ; n++ {
					text := fmt.Sprintf("round %d %s n%d %s", round, id, n, strings.Repeat("x", messageSize(r)))
					method, role := "wave/userPromptSubmit", "user"
					params := map[string]any{"sessionId": id, "prompt": text}
					if n%2 == 1 {
						method, role = "wave/addAssistantMessage", "assistant"
						params = map[string]any{"sessionId": id, "blocks": []any{map[string]any{"type": "text", "content": text}}}
					}
					if _, err := c.call(method, params); err != nil {
						if !errors.Is(err, errConnectionEnded) {
							t.Errorf("round %d: %s: %v", round, method, err)
						}
						return
					}
					mu.Lock()
					acked[id] = append(acked[id], role+":"+text)
					requests++
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(20+rng.IntN(600)) * time.Millisecond)
		c.kill()
		wg.Wait()
		require.Contains(t, c.cmd.ProcessState.String(), "killed", "the server stopped by itself; stderr:\n%s", c.stderr.String())
		rounds++
		t1, j1 := killMarks(t, filepath.Join(homes[format], "sessions"))
		torn, journals = torn+t1, journals+j1
	}

	loaded := 0
	for format, home := range homes {
		st, err := session.NewStore(session.Options{WaveHome: home})
		require.NoError(t, err)
		for k := 0; k < sessionsPerRound; k++ {
			id := fmt.Sprintf("kill-%s-%d", format, k)
			s, err := st.Open(id)
			require.NoError(t, err, "session %s does not load", id)
			var got []string
			for _, m := range s.Messages() {
				for _, b := range m.Blocks {
					if b.Type == session.BlockText {
						got = append(got, m.Role+":"+b.Content)
					}
				}
			}
			requireInOrder(t, id, acked[id], got)
			loaded += len(got)
		}
		require.NoError(t, st.Close())
	}
	t.Logf("%d kills, %d acknowledged messages, %d messages loaded in all; the kills left %d torn files and %d journals to replay",
		rounds, requests, loaded, torn, journals)
}

// killMarks counts the session files a kill left torn (not parseable as
// they are) and the write journals it left, to show the kills hit writes.
func killMarks(t *testing.T, dir string) (torn, journals int) {
	files, err := filepath.Glob(filepath.Join(dir, "session_*"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		switch {
		case strings.HasSuffix(f, ".journal"):
			if len(data) > 0 {
				journals++
			}
		case strings.HasSuffix(f, ".jsonl"):
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				if len(line) > 0 && !json.Valid(line) {
					torn++
					break
				}
			}
		case strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".meta.json"):
			if !json.Valid(data) {
				torn++
			}
		}
	}
	return torn, journals
}

// messageSize is mostly small, sometimes several pages.
func messageSize(r *rand.Rand) int {
	switch n := r.IntN(20); {
	case n == 0:
		return 16<<10 + r.IntN(48<<10)
	case n < 4:
		return 1<<10 + r.IntN(7<<10)
	default:
		return r.IntN(300)
	}
}

// requireInOrder fails unless want is a subsequence of got: every
// acknowledged message is there, in the order it was acknowledged (the
// server may also have saved a message whose answer the kill cut off).
func requireInOrder(t *testing.T, id string, want, got []string) {
	t.Helper()
	j := 0
	for i, w := range want {
		for j < len(got) && got[j] != w {
			j++
		}
		if j == len(got) {
			t.Fatalf("session %s lost acknowledged message %d of %d: %.60q", id, i+1, len(want), w)
		}
		j++
	}
}
