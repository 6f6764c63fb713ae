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
					b := Block{Type: BlockTool, ID: fmt.Sprintf("toolu_%d_%d", i, k), Name: "Read",
						Input: json.RawMessage(fmt.Sprintf(`{"file_path":"/src/%d/%d.go","n":[1,2,{"x":"\u00e9"}]}`, i, k))}
					if i%5 != 4 { // the last ones have not run yet
						b.Result, b.Success = fmt.Sprintf("result %d %d", i, k), boolPtr(k%2 == 0)
						if i%50 == 0 {
							b.Result = long
						}
					}
					blocks = append(blocks, b)
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
			_, err = r.PostToolUse(ctx, "toolu_4_0", "Read", want[9].Blocks[1].Input, json.RawMessage(`{"output":"ran later"}`))
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
							require.NotEqual(t, want[i].Blocks[k].Result, got[i].Blocks[k].Result)
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
