package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResumeKeepsEveryMessage: a resumed session holds exactly the messages
// that were written, whatever their shape (strings with escapes and
// non-ASCII text, strings longer than an arena keeps, messages with more
// blocks than an arena chunk shares, enough messages to fill several
// chunks), and changing a resumed message (a tool's result, a block added
// to the last message, a new message) changes that message only, in memory
// and in the file (as the format keeps it), for both formats.
func TestResumeKeepsEveryMessage(t *testing.T) {
	ctx := context.Background()
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			home := t.TempDir()
			st, err := NewStore(Options{WaveHome: home, Format: format})
			require.NoError(t, err)
			s, err := st.Create("keep-every-message")
			require.NoError(t, err)
			long := strings.Repeat("long é \"quoted\" \\ line\n", arenaString/20)
			for i := 0; i < 600; i++ {
				_, err := s.UserPromptSubmit(ctx, fmt.Sprintf("prompt %d: ünïcödé \"q\" \t tab <html> & %s", i, strings.Repeat("x", i%50)))
				require.NoError(t, err)
				blocks := []Block{{Type: BlockText, Content: fmt.Sprintf("reply %d", i)}}
				n := 1
				if i%97 == 0 {
					n = arenaBlocks/4 + 3 // a message that keeps its own block list
				}
				for k := 0; k < n; k++ {
					t := Tool{ID: fmt.Sprintf("toolu_%d_%d", i, k), Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"/src/%d/%d.go","n":[1,2,{"x":"\u00e9"}]}`, i, k))}
					if i%5 != 4 { // the last ones have not run yet
						t.Result, t.Success = fmt.Sprintf("result %d %d", i, k), boolPtr(k%2 == 0)
						if i%50 == 0 {
							t.Result = long
						}
					}
					blocks = append(blocks, ToolBlock(t))
				}
				require.NoError(t, s.AddAssistantMessage(blocks))
			}
			written := s.Messages()
			path := s.TranscriptPath()
			file, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, st.Close())

			resume := func() *Session {
				st, err := NewStore(Options{WaveHome: home})
				require.NoError(t, err)
				t.Cleanup(func() { st.Close() })
				r, err := st.Open("keep-every-message")
				require.NoError(t, err)
				return r
			}
			r := resume()
			require.Equal(t, written, r.Messages())
			again, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(file), string(again), "a resume leaves the file as it was")

			// Change resumed messages: a tool result in the middle, a
			// warning on the last message, a new message.
			want := r.Messages()
			_, err = r.PostToolUse(ctx, "toolu_4_0", "Read", want[9].Blocks[1].Tool().Input, json.RawMessage(`{"output":"ran later"}`))
			require.NoError(t, err)
			_, err = r.AddWarning("a warning after the resume")
			require.NoError(t, err)
			_, err = r.UserPromptSubmit(ctx, "after the resume")
			require.NoError(t, err)
			got := r.Messages()
			require.Len(t, got, len(want)+1)
			for i := range want {
				switch i {
				case 9, len(want) - 1:
					require.Len(t, got[i].Blocks, len(want[i].Blocks)+map[bool]int{true: 1}[i == len(want)-1])
					for k := range want[i].Blocks {
						if i == 9 && k == 1 {
							require.NotEqual(t, want[i].Blocks[k].Tool().Result, got[i].Blocks[k].Tool().Result)
							continue
						}
						require.Equal(t, want[i].Blocks[k], got[i].Blocks[k], "message %d block %d", i, k)
					}
				default:
					require.Equal(t, want[i], got[i], "message %d", i)
				}
			}
			require.Equal(t, "after the resume", got[len(got)-1].Blocks[0].Content)
			if format == FormatJSON {
				require.Equal(t, got, resume().Messages(), "the file holds the changes")
			} else { // jsonl holds what the model sees (see FormatJSONL)
				require.Equal(t, r.APIMessages(), resume().APIMessages(), "the file holds the changes")
			}
		})
	}
}

// TestResumeMessagesWithoutBlocks: in a json file in this package's layout,
// a message whose blocks are [], null or missing comes back with no blocks
// (and "blocks":[] when written again), however many blocks the message
// before it had; and a message with no blocks shares nothing with another,
// so that adding to one leaves the other as it was.
func TestResumeMessagesWithoutBlocks(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(home+"/sessions", 0o700))
	lines := []string{
		`{"id":"no-blocks","version":1,"metadata":{},"state":{"messages":[`,
		`{"role":"assistant","blocks":[{"type":"text","content":"a"},{"type":"tool","id":"t1","name":"Read","input":{"x":1},"result":"r","success":true}]},`,
		`{"role":"user","blocks":[]},`,
		`{"role":"assistant","blocks":[{"type":"text","content":"b"},{"type":"tool","id":"t2","name":"Read","input":{"x":2}}]},`,
		`{"role":"user","blocks":null},`,
		`{"role":"user"},`,
		`{"role":"assistant","blocks":[]}`,
		`]}}`,
	}
	path := home + "/sessions/session_o-blocks.json"
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	st, err := NewStore(Options{WaveHome: home})
	require.NoError(t, err)
	defer st.Close()
	s, err := st.Open("no-blocks")
	require.NoError(t, err)
	yes := true
	want := []Message{
		{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Content: "a"},
			ToolBlock(Tool{ID: "t1", Name: "Read", Input: json.RawMessage(`{"x":1}`), Result: "r", Success: &yes})}},
		{Role: RoleUser, Blocks: []Block{}},
		{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Content: "b"},
			ToolBlock(Tool{ID: "t2", Name: "Read", Input: json.RawMessage(`{"x":2}`)})}},
		{Role: RoleUser, Blocks: []Block{}},
		{Role: RoleUser, Blocks: []Block{}},
		{Role: RoleAssistant, Blocks: []Block{}},
	}
	require.Equal(t, want, s.Messages())

	// A warning goes into the last (empty) assistant message; the other
	// empty messages stay empty, in memory and in the file.
	_, err = s.AddWarning("careful")
	require.NoError(t, err)
	want[5].Blocks = []Block{{Type: BlockWarn, Content: "careful"}}
	require.Equal(t, want, s.Messages())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `{"role":"user","blocks":null},`, "a resume rewrites only what changed")
	st2, err := NewStore(Options{WaveHome: home})
	require.NoError(t, err)
	defer st2.Close()
	again, err := st2.Open("no-blocks")
	require.NoError(t, err)
	require.Equal(t, want, again.Messages())
}
