package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const crashHelperEnv = "WAVEHOOKS_SESSION_CRASH_HELPER"

// crashOp makes the n-th change of the crash test. It depends only on rng
// and the conversation, so the helper process and the test, starting from
// the same file and seed, make the same changes. Every kind of write is
// there: appends of small and multi-page messages, tool results that
// rewrite a message in the middle, and removals that shrink the file.
func crashOp(rng *rand.Rand, c *conversation, n int) {
	last := ""
	if len(c.msgs) > 0 {
		last = c.msgs[len(c.msgs)-1].Role
	}
	pending := ""
	for i := len(c.msgs) - 1; i >= max(0, len(c.msgs)-3) && pending == ""; i-- {
		for _, b := range c.msgs[i].Blocks {
			if b.Type == BlockTool && !b.HasResult() {
				pending = b.Tool().ID
			}
		}
	}
	r := rng.IntN(100)
	switch {
	case len(c.msgs) > 0 && (r < 8 || len(c.msgs) > 100 && r < 50):
		c.truncate(len(c.msgs) - 1)
	case pending != "" && r < 35:
		result := crashText(rng, n)
		c.updateTool(pending, func(t *Tool) { t.Result, t.Success = result, boolPtr(rng.IntN(4) > 0) })
	case last != RoleAssistant && r < 55:
		c.add(RoleAssistant, Block{Type: BlockText, Content: crashText(rng, n)},
			ToolBlock(Tool{ID: "toolu_" + strconv.Itoa(n), Name: "Bash", Input: json.RawMessage(`{"n":` + strconv.Itoa(n) + `}`)}))
	default:
		role := RoleUser
		if last == RoleUser {
			role = RoleAssistant
		}
		c.add(role, Block{Type: BlockText, Content: crashText(rng, n)})
	}
}

// crashText is a text of random size: mostly small, some spanning pages.
func crashText(rng *rand.Rand, n int) string {
	size := 1 + rng.IntN(400)
	switch r := rng.IntN(10); {
	case r >= 8:
		size = 8<<10 + rng.IntN(56<<10)
	case r >= 6:
		size = 400 + rng.IntN(7600)
	}
	return fmt.Sprintf("m%d:%s", n, strings.Repeat(string(rune('a'+n%26)), size))
}

// crashHelper runs in a child process: it opens (repairing) or creates the
// session and changes it until it is killed, printing "ack N" after the
// N-th change's write returned.
func crashHelper() {
	seed, _ := strconv.ParseUint(os.Getenv(crashHelperEnv+"_SEED"), 10, 64)
	st, err := NewStore(Options{WaveHome: os.Getenv(crashHelperEnv + "_HOME"), Format: Format(os.Getenv(crashHelperEnv + "_FORMAT"))})
	if err == nil {
		var s *Session
		if s, _, err = st.OpenOrCreate(os.Getenv(crashHelperEnv)); err == nil {
			fmt.Println("ready")
			rng := rand.New(rand.NewPCG(seed, 0))
			stop := time.Now().Add(20 * time.Second) // in case nobody kills us
			for n := 1; time.Now().Before(stop); n++ {
				s.mu.Lock()
				crashOp(rng, s.conv, n)
				err = s.save()
				s.mu.Unlock()
				if err != nil {
					break
				}
				fmt.Printf("ack %d\n", n)
			}
		}
	}
	fmt.Fprintln(os.Stderr, "crash helper:", err)
	os.Exit(2)
}

// runAndKill starts the helper, SIGKILLs it after delay and returns how many
// changes it acknowledged.
func runAndKill(t *testing.T, home string, format Format, id string, seed uint64, delay time.Duration) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+id, crashHelperEnv+"_HOME="+home,
		crashHelperEnv+"_FORMAT="+string(format), crashHelperEnv+"_SEED="+strconv.FormatUint(seed, 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	ready, done := make(chan struct{}), make(chan int)
	go func() {
		acked := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if line == "ready" {
				close(ready)
			} else if n, ok := strings.CutPrefix(line, "ack "); ok {
				acked, _ = strconv.Atoi(n)
			}
		}
		done <- acked
	}()
	select {
	case <-ready:
		time.Sleep(delay)
	case <-time.After(10 * time.Second):
	}
	require.NoError(t, cmd.Process.Kill())
	acked := <-done
	err = cmd.Wait()
	require.Error(t, err)
	require.Contains(t, err.Error(), "killed", "the helper must not stop by itself: %s", stderr.String())
	return acked
}

// TestCrashKeepsAcknowledgedMessages kills a writing process at random
// moments. After every kill the file loads (repaired if needed), is valid
// JSON, and holds exactly the state after the last acknowledged change or
// after the one in flight: never less, never a mix.
func TestCrashKeepsAcknowledgedMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes for several seconds")
	}
	home := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	bases := map[Format][]Message{}
	deadline := time.Now().Add(15 * time.Second)
	rounds, total, torn, journals := 0, 0, 0, 0
	for round := 0; round < 40 && (round < 10 || time.Now().Before(deadline)); round++ {
		format := []Format{FormatJSON, FormatJSONL}[round%2]
		id := "crash-" + string(format)
		seed := uint64(round) + 1
		acked := runAndKill(t, home, format, id, seed, time.Duration(1+rng.IntN(40))*time.Millisecond)

		c := newConversation(bases[format])
		ops := rand.New(rand.NewPCG(seed, 0))
		for n := 1; n <= acked; n++ {
			crashOp(ops, c, n)
		}
		ackedState := crashKey(format, c.msgs)
		crashOp(ops, c, acked+1)
		inFlight := crashKey(format, c.msgs)

		st, err := NewStore(Options{WaveHome: home})
		require.NoError(t, err)
		path := st.jsonPath(id[len(id)-shortIDLen:])
		if format == FormatJSONL {
			path = st.jsonlPath(id[len(id)-shortIDLen:])
		}
		if !fileParses(format, path) {
			torn++
		}
		if fi, err := os.Stat(journalPath(path)); err == nil && fi.Size() > 0 {
			journals++
		}
		s, err := st.Open(id)
		require.NoError(t, err, "round %d: the file must load after a kill", round)
		got := s.Messages()
		requireValidFile(t, format, s.TranscriptPath())
		require.NoError(t, st.Close())
		key := crashKey(format, got)
		require.True(t, key == ackedState || key == inFlight,
			"round %d (%s): after %d acknowledged changes the file holds neither that state nor the next", round, format, acked)
		bases[format] = got
		rounds++
		total += acked
	}
	t.Logf("%d kills, %d acknowledged changes in all; %d kills left a torn file, %d a journal to replay",
		rounds, total, torn, journals)
}

// crashKey is what must survive a crash: every message (json), or what the
// model sees (jsonl, which keeps no error blocks).
func crashKey(format Format, msgs []Message) string {
	var v any = msgs
	if format == FormatJSONL {
		v = ToAPI(msgs)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func fileParses(format Format, path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if format == FormatJSON {
		return json.Valid(data)
	}
	return !jsonlTorn(data)
}

func requireValidFile(t *testing.T, format Format, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	if format == FormatJSON {
		require.True(t, json.Valid(data), "%s is not valid JSON", path)
		return
	}
	require.True(t, len(data) == 0 || data[len(data)-1] == '\n', "a jsonl file ends with a newline")
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		require.True(t, len(data) == 0 || json.Valid(line), "%s line %d is not valid JSON", path, i+1)
	}
}

// TestTornWrites cuts the write of one change at every interesting byte,
// with and without its journal, and loads the result.
func TestTornWrites(t *testing.T) {
	big := strings.Repeat("x", 20000)
	scenarios := []struct {
		name    string
		append  bool // the change only appends: no journal is written
		change  func(c *conversation)
		formats []Format
	}{
		{"append a small message", true, func(c *conversation) { c.add(RoleUser, Block{Type: BlockText, Content: "small"}) }, nil},
		{"append a multi-page message", true, func(c *conversation) { c.add(RoleUser, Block{Type: BlockText, Content: big + "y"}) }, nil},
		{"record a tool result", false, func(c *conversation) {
			c.updateTool("t1", func(t *Tool) { t.Result, t.Success = big+"r", boolPtr(true) })
		}, nil},
		{"remove the last message", false, func(c *conversation) { c.truncate(len(c.msgs) - 1) }, nil},
	}
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		for _, sc := range scenarios {
			t.Run(string(format)+"/"+sc.name, func(t *testing.T) {
				home := t.TempDir()
				st, err := NewStore(Options{WaveHome: home, Format: format})
				require.NoError(t, err)
				s, err := st.Create("torn-1")
				require.NoError(t, err)
				path := s.TranscriptPath()
				s.mu.Lock()
				s.conv.add(RoleUser, Block{Type: BlockText, Content: "hi"})
				s.conv.add(RoleAssistant, ToolBlock(Tool{ID: "t1", Name: "Bash", Input: json.RawMessage(`{}`)}))
				s.conv.add(RoleUser, Block{Type: BlockText, Content: "more"})
				s.conv.add(RoleAssistant, Block{Type: BlockText, Content: big})
				require.NoError(t, s.save())
				before := crashKey(format, s.conv.msgs)
				prev, err := os.ReadFile(path)
				require.NoError(t, err)
				sc.change(s.conv)
				require.NoError(t, s.save())
				after := crashKey(format, s.conv.msgs)
				full, err := os.ReadFile(path)
				require.NoError(t, err)
				s.mu.Unlock()
				require.NoError(t, st.Close())

				start := 0
				for start < min(len(prev), len(full)) && prev[start] == full[start] {
					start++
				}
				write := append(bytes.Clone(full[start:]), bytes.Repeat([]byte{' '}, max(0, len(prev)-len(full)))...)
				rec := journalRecord(int64(start), int64(len(full)), write)

				load := func(main, journal []byte) string {
					t.Helper()
					require.NoError(t, os.WriteFile(path, main, 0o600))
					os.Remove(journalPath(path))
					if journal != nil {
						require.NoError(t, os.WriteFile(journalPath(path), journal, 0o600))
					}
					st, err := NewStore(Options{WaveHome: home})
					require.NoError(t, err)
					defer st.Close()
					s, err := st.Open("torn-1")
					require.NoError(t, err)
					requireValidFile(t, format, path)
					require.NoFileExists(t, journalPath(path))
					return crashKey(format, s.Messages())
				}
				for _, m := range cuts(len(write)) {
					torn := overlay(prev, start, write[:m])
					if sc.append {
						got := load(torn, nil)
						require.True(t, got == before || got == after, "cut at %d of %d", m, len(write))
						if m == 0 {
							require.Equal(t, before, got)
						}
					} else {
						require.Equal(t, after, load(torn, rec), "journal replay, cut at %d", m)
					}
				}
				if !sc.append {
					for _, j := range cuts(len(rec) - 1) {
						require.Equal(t, before, load(prev, rec[:j]), "torn journal cut at %d", j)
					}
				}
				require.Equal(t, after, load(full, nil))
			})
		}
	}
}

// cuts lists where a write of n bytes may be cut: near both ends, around
// page boundaries, and every few hundred bytes.
func cuts(n int) []int {
	seen := map[int]bool{}
	var out []int
	add := func(m int) {
		if m >= 0 && m <= n && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for m := 0; m < 40; m++ {
		add(m)
		add(n - m)
	}
	for m := 0; m <= n; m += 4096 {
		add(m - 1)
		add(m)
		add(m + 1)
	}
	for m := 0; m <= n; m += 997 {
		add(m)
	}
	return out
}

// overlay is the file after a write of data at off that stopped early.
func overlay(file []byte, off int, data []byte) []byte {
	out := bytes.Clone(file)
	if end := off + len(data); end > len(out) {
		out = append(out, make([]byte, end-len(out))...)
	}
	copy(out[off:], data)
	return out
}
