package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fullEncoding is the file a session's messages make when written whole,
// built the plain way (every message or API line encoded on its own), to
// check the incremental encoders against.
func fullEncoding(t *testing.T, s *Session) []byte {
	t.Helper()
	var buf bytes.Buffer
	if s.format == FormatJSONL {
		for _, m := range ToAPI(s.conv.msgs) {
			b, err := encodeJSON(m)
			require.NoError(t, err)
			buf.Write(b)
			buf.WriteByte('\n')
		}
		return buf.Bytes()
	}
	// The head line holds the session's id and metadata, which no save
	// changes: it is taken from the file.
	file, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	buf.Write(file[:bytes.IndexByte(file, '\n')+1])
	for i, m := range s.conv.msgs {
		if i > 0 {
			buf.Write(jsonSep)
		}
		b, err := encodeJSON(m)
		require.NoError(t, err)
		buf.Write(b)
	}
	buf.Write(jsonFoot)
	return buf.Bytes()
}

// TestIncrementalSavesMatchAFullWrite changes sessions at random — messages
// added and erased, blocks appended, tool blocks given inputs and results
// anywhere, the session closed and loaded again (so that what was loaded is
// not known to the encoders), saves made while a hook reads — and checks
// after every save that the file is byte for byte what writing the whole
// conversation gives, and that loading it gives the conversation back.
func TestIncrementalSavesMatchAFullWrite(t *testing.T) {
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(format))))
			for round := 0; round < 40; round++ {
				home := t.TempDir()
				st, err := NewStore(Options{WaveHome: home, Format: format})
				require.NoError(t, err)
				s, err := st.Create("enc-" + fmt.Sprint(round))
				require.NoError(t, err)
				var ids []string
				for step := 0; step < 60; step++ {
					s.mu.Lock()
					op := randomChange(rng, s.conv, &ids)
					reading := rng.IntN(8) == 0
					if reading {
						s.file.AddReader() // a hook reads: the save goes through a copy
					}
					require.NoError(t, s.save(), "round %d step %d (%s)", round, step, op)
					if reading {
						s.file.DoneReader()
					}
					got, err := os.ReadFile(s.TranscriptPath())
					require.NoError(t, err)
					require.Equal(t, string(fullEncoding(t, s)), string(got), "round %d step %d (%s)", round, step, op)
					want := s.conv.msgs
					s.mu.Unlock()
					if rng.IntN(10) == 0 {
						// Load it again: the next changes are written over units
						// the encoders do not know.
						require.NoError(t, s.Close())
						s, err = st.Open(s.ID())
						require.NoError(t, err)
						if format == FormatJSON {
							require.Equal(t, cloneAll(want), s.Messages(), "round %d step %d: loaded", round, step)
						} else {
							require.Equal(t, ToAPI(want), s.APIMessages(), "round %d step %d: loaded", round, step)
						}
						ids = ids[:0]
						for _, m := range s.Messages() {
							for _, b := range m.Blocks {
								if b.Type == BlockTool {
									ids = append(ids, b.Tool().ID)
								}
							}
						}
					}
				}
				require.NoError(t, st.Close())
			}
		})
	}
}

func cloneAll(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Clone()
	}
	return out
}

// randomChange makes one change of the kinds events make and names it.
func randomChange(rng *rand.Rand, c *conversation, ids *[]string) string {
	text := func() string {
		return []string{"hi", "", "  ", "a longer text with \"quotes\" and <html> and \u2028", strings.Repeat("z", 300)}[rng.IntN(5)]
	}
	newID := func() string {
		id := fmt.Sprintf("toolu_%d", rng.Uint32())
		*ids = append(*ids, id)
		return id
	}
	switch rng.IntN(10) {
	case 0:
		c.addUser(Block{Type: BlockText, Content: text()})
		return "user message"
	case 1:
		n := len(c.msgs)
		c.add(RoleAssistant, Block{Type: BlockText, Content: text()}, ToolBlock(Tool{ID: newID(), Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}))
		c.msgs[n].SetReply(true)
		return "reply"
	case 2, 3:
		c.addTool(ToolBlock(Tool{ID: newID(), Name: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)}))
		return "tool call"
	case 4, 5:
		if len(*ids) == 0 {
			return "nothing"
		}
		id := (*ids)[rng.IntN(len(*ids))]
		res := text()
		c.updateTool(id, func(t *Tool) { t.Result, t.Success = res, boolPtr(rng.IntN(2) == 0) })
		return "result of " + id
	case 6:
		if len(*ids) == 0 {
			return "nothing"
		}
		id := (*ids)[rng.IntN(len(*ids))]
		c.updateTool(id, func(t *Tool) { t.Input = json.RawMessage(fmt.Sprintf(`{"n":%d}`, rng.IntN(100))) })
		return "input of " + id
	case 7:
		if rng.IntN(2) == 0 {
			c.addWarn(text())
			return "warn"
		}
		c.addError(text())
		return "error"
	case 8:
		if len(c.msgs) == 0 {
			return "nothing"
		}
		c.remove(c.msgs[len(c.msgs)-1-rng.IntN(min(3, len(c.msgs)))].Seq())
		return "erase a message"
	default:
		c.addHookBlocks("PostToolUse", []string{text(), "context"})
		return "hook blocks"
	}
}

// TestLoadingReadsLinesOfAnyLength: the json file is read line by line
// through a 64 KiB buffer; messages longer than that, and lines that end
// right at its edge, load whole.
func TestLoadingReadsLinesOfAnyLength(t *testing.T) {
	home := t.TempDir()
	st, err := NewStore(Options{WaveHome: home})
	require.NoError(t, err)
	s, err := st.Create("long-lines")
	require.NoError(t, err)
	s.mu.Lock()
	for _, n := range []int{10, 64<<10 - 40, 64 << 10, 300 << 10, 5} {
		s.conv.addUser(Block{Type: BlockText, Content: strings.Repeat("x", n)})
	}
	require.NoError(t, s.save())
	want := cloneAll(s.conv.msgs)
	s.mu.Unlock()
	require.NoError(t, st.Close())

	st2, err := NewStore(Options{WaveHome: home})
	require.NoError(t, err)
	defer st2.Close()
	s2, err := st2.Open("long-lines")
	require.NoError(t, err)
	require.Equal(t, want, s2.Messages())
	s2.mu.Lock()
	defer s2.mu.Unlock()
	require.False(t, s2.file.NeedsRewrite(), "the file is in the layout: saves stay incremental")
}

// TestResumeJSONLChecksTheLayout: a jsonl file whose lines read as the
// session's messages but are not byte for byte what this package writes
// (another program's spacing, key order, escapes or shapes) is written again
// whole by the first save after a resume, so that later saves can write at
// offsets; a file in the layout is not, and its saves stay incremental.
// The check folds and encodes every line once (jsonlEncoder.load) and
// compares it with the line read, by length and hash.
func TestResumeJSONLChecksTheLayout(t *testing.T) {
	tool := `{"role":"assistant","content":[{"type":"text","text":"let me look"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false},{"type":"text","text":"thanks"}]}`
	for _, tc := range []struct {
		name   string
		lines  []string
		layout bool
	}{
		{"this package's layout", []string{`{"role":"user","content":"hi"}`, tool, result, `{"role":"assistant","content":"done"}`}, true},
		{"spaces", []string{`{"role":"user","content":"hi"}`, tool, result, `{"role": "assistant", "content": "done"}`}, false},
		{"key order", []string{`{"content":"hi","role":"user"}`, tool, result, `{"role":"assistant","content":"done"}`}, false},
		{"a single text as a list", []string{`{"role":"user","content":[{"type":"text","text":"hi"}]}`, tool, result}, false},
		{"an escaped letter", []string{`{"role":"user","content":"h\u0069"}`, tool, result}, false},
		{"a result without is_error", []string{`{"role":"user","content":"hi"}`, tool,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"thanks"}]}`}, false},
		{"an input with spaces", []string{`{"role":"user","content":"hi"}`,
			strings.Replace(tool, `{"file_path":"/a"}`, `{"file_path": "/a"}`, 1), result}, false},
		{"two lines of one role", []string{`{"role":"user","content":"hi"}`, `{"role":"user","content":"again"}`, tool, result}, false},
		{"a tool result as a list of texts", []string{`{"role":"user","content":"hi"}`, tool,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}],"is_error":false},{"type":"text","text":"thanks"}]}`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			st, err := NewStore(Options{WaveHome: home, Format: FormatJSONL})
			require.NoError(t, err)
			s, err := st.Create("layout")
			require.NoError(t, err)
			path := s.TranscriptPath()
			require.NoError(t, st.Close())
			require.NoError(t, os.WriteFile(path, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o600))

			st, err = NewStore(Options{WaveHome: home})
			require.NoError(t, err)
			defer st.Close()
			s, err = st.Open("layout")
			require.NoError(t, err)
			s.mu.Lock()
			needFull := s.file.NeedsRewrite()
			s.mu.Unlock()
			require.Equal(t, !tc.layout, needFull, "the file is in the layout")
			require.NoError(t, s.AddAssistantMessage([]Block{{Type: BlockText, Content: "one more"}}))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			s.mu.Lock()
			want := fullEncoding(t, s)
			s.mu.Unlock()
			require.Equal(t, string(want), string(got))
		})
	}
}
