package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// converse drives a session through a small turn with every kind of block.
func converse(t *testing.T, s *session.Session) {
	t.Helper()
	ctx := context.Background()
	_, err := s.SessionStart(ctx, "startup")
	require.NoError(t, err)
	_, err = s.UserPromptSubmit(ctx, "What is 2 + 2")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "4"}}))
	_, err = s.UserPromptSubmit(ctx, "Write it to a.txt")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "Writing."},
		session.Block{Type: "tool"}.WithTool(session.Tool{ID: "toolu_1", Name: "Write", Input: json.RawMessage(`{"file_path":"a.txt","content":"4"}`)})}))
	_, err = s.PreToolUse(ctx, "toolu_1", "Write", json.RawMessage(`{"file_path":"a.txt","content":"4"}`), nil)
	require.NoError(t, err)
	_, err = s.PostToolUse(ctx, "toolu_1", "Write", json.RawMessage(`{"file_path":"a.txt","content":"4"}`),
		json.RawMessage(`{"success":true,"output":"wrote a.txt"}`))
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "The answer is in a.txt"}}))
	_, err = s.Stop(ctx)
	require.NoError(t, err)
}

// conversationHooks give converse's events a hook block, a warn and an error.
func conversationHooks() []hook {
	return []hook{
		{event: event.SessionStart, command: sh("respond.sh", "0", "welcome")},
		{event: event.PostToolUse, command: sh("respond.sh", "0", `{"systemMessage":"formatted a.txt"}`)},
		{event: event.Stop, command: sh("respond.sh", "1", "", "notifier offline")},
	}
}

func withoutUserOnlyBlocks(msgs []session.Message) []session.Message {
	var out []session.Message
	for _, m := range msgs {
		var bs []session.Block
		for _, b := range m.Blocks {
			if b.Type != session.BlockError && b.Type != session.BlockWarn {
				bs = append(bs, b)
			}
		}
		if len(bs) > 0 {
			m.Blocks = bs
			out = append(out, m)
		}
	}
	return out
}

func TestResume(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			e := newEnv(t, format, conversationHooks()...)
			s := e.create(t)
			converse(t, s)
			before := s.Messages()
			require.Len(t, blocksOf(before, session.BlockError), 1)
			id, path := s.ID(), s.TranscriptPath()
			require.Equal(t, "."+string(format), filepath.Ext(path))

			// A restarted server, whose settings now say the other format:
			// the session keeps its own.
			st := e.newStore(t, map[session.Format]session.Format{"json": "jsonl", "jsonl": "json"}[format])
			r, err := st.Open(id)
			require.NoError(t, err)
			require.Equal(t, path, r.TranscriptPath())
			want := before
			if format == session.FormatJSONL {
				// jsonl holds what the model sees: no error or warn blocks,
				// and consecutive user messages come back merged.
				want = withoutUserOnlyBlocks(before)
				want = append([]session.Message{{Role: "user", Blocks: append(want[0].Blocks, want[1].Blocks...)}}, want[2:]...)
				require.Equal(t, []string{"user:hook,text", "assistant:text", "user:text", "assistant:text,tool", "assistant:text"}, roles(want))
			}
			require.Equal(t, want, r.Messages())
			require.Equal(t, s.APIMessages(), r.APIMessages())

			// and it goes on where it stopped
			_, err = r.UserPromptSubmit(context.Background(), "thanks")
			require.NoError(t, err)
			msgs := r.Messages()
			require.Equal(t, "thanks", msgs[len(msgs)-1].Blocks[0].Content)
			again, err := e.newStore(t, "").Open(id)
			require.NoError(t, err)
			require.Equal(t, msgs, again.Messages())
		})
	}
}

func TestJSONFileLayout(t *testing.T) {
	e := newEnv(t, session.FormatJSON, conversationHooks()...)
	s := e.create(t)
	converse(t, s)
	data, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	require.Regexp(t, `^session_[0-9a-f]{8}\.json$`, filepath.Base(s.TranscriptPath()))
	require.Equal(t, s.ID()[len(s.ID())-8:], strings.TrimSuffix(strings.TrimPrefix(filepath.Base(s.TranscriptPath()), "session_"), ".json"))

	// One message per line between a head that ends the way docs/hooks.md's jq
	// expects and the closing brackets.
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Regexp(t, `^\{"id":"`+s.ID()+`","version":1,"metadata":\{.*\},"state":\{"messages":\[$`, lines[0])
	require.Equal(t, "]}}", lines[len(lines)-1])
	msgs := s.Messages()
	require.Len(t, lines, len(msgs)+2)
	for i, m := range msgs {
		var got session.Message
		require.NoError(t, json.Unmarshal([]byte(strings.TrimSuffix(lines[i+1], ",")), &got))
		require.Equal(t, m, got)
	}

	// The acceptance check of docs/hooks.md (jq '.state.messages'), verbatim, on the real file.
	out, err := exec.Command("sh", "-c", `echo '{"transcript_path":"`+s.TranscriptPath()+`"}' | jq -r '.transcript_path' | xargs cat | jq '.state.messages'`).Output()
	require.NoError(t, err)
	fromFile, err := json.Marshal(msgs)
	require.NoError(t, err)
	require.JSONEq(t, string(fromFile), string(out))

	// An event rewrites only the end of the file.
	_, err = s.UserPromptSubmit(context.Background(), "one more")
	require.NoError(t, err)
	after, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	keep := bytes.LastIndex(data, []byte("\n]}}"))
	require.Equal(t, data[:keep], after[:keep], "the bytes of earlier messages must not move")
}

// The jsonl jq recipes of docs/hooks.md, verbatim, on a jsonl transcript written by the store.
func TestJSONLRecipes(t *testing.T) {
	e := newEnv(t, session.FormatJSONL)
	s := e.create(t)
	ctx := context.Background()
	_, err := s.UserPromptSubmit(ctx, "What is 2 + 2")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "4"}}))
	_, err = s.UserPromptSubmit(ctx, "What about 3 + 3")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "The answer is"}, {Type: "text", Content: "6"}}))

	path := s.TranscriptPath()
	require.Regexp(t, `^session_[0-9a-f]{8}\.jsonl$`, filepath.Base(path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, `{"role":"user","content":"What is 2 + 2"}
{"role":"assistant","content":"4"}
{"role":"user","content":"What about 3 + 3"}
{"role":"assistant","content":[{"type":"text","text":"The answer is"},{"type":"text","text":"6"}]}
`, string(data))

	recipes := []struct{ name, script, want string }{{
		name: "method 1: tac",
		script: `RESPONSE=$(tac "$TRANSCRIPT_PATH" | while read -r line; do
    ROLE=$(echo "$line" | jq -r '.role // empty')
    if [ "$ROLE" = "assistant" ]; then
        # Handle both string and array content
        echo "$line" | jq -r '
            if .content then
                if (.content | type) == "string" then
                    .content
                elif (.content | type) == "array" then
                    [.content[] | select(.type == "text") | .text] | join("\n")
                else
                    empty
                end
            else
                empty
            end
        '
        break
    fi
done)
echo "$RESPONSE"`,
		want: "The answer is\n6\n",
	}, {
		name: "method 2: select and tail",
		script: `RESPONSE=$(cat "$TRANSCRIPT_PATH" | \
    jq -r 'select(.role == "assistant") |
           if (.content | type) == "string" then .content
           elif (.content | type) == "array" then
               [.content[] | select(.type == "text") | .text] | join("\n")
           else empty end' | \
    tail -1)
echo "$RESPONSE"`,
		want: "6\n", // tail -1 keeps the last line of a multi-line answer: the recipe's own limit
	}, {
		name:   "all user prompts",
		script: `cat "$TRANSCRIPT_PATH" | jq -r 'select(.role == "user") | .content'`,
		want:   "What is 2 + 2\nWhat about 3 + 3\n",
	}, {
		// This recipe adds "[USER] " to .content, so it only works while every
		// user line's content is a string: a user line that carries tool
		// results or merged hook context has an array content, and jq stops
		// with "string and array cannot be added".
		name: "readable text",
		script: `cat "$TRANSCRIPT_PATH" | jq -r '
  if .role == "user" then
    "[USER] " + .content
  elif .role == "assistant" then
    if (.content | type) == "string" then
      "[CLAUDE] " + .content
    elif (.content | type) == "array" then
      "[CLAUDE] " + ([.content[] | select(.type == "text") | .text] | join("\n"))
    else
      ""
    end
  else
    ""
  end
'`,
		want: "[USER] What is 2 + 2\n[CLAUDE] 4\n[USER] What about 3 + 3\n[CLAUDE] The answer is\n6\n",
	}}
	for _, r := range recipes {
		t.Run(r.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", r.script)
			cmd.Env = append(os.Environ(), "TRANSCRIPT_PATH="+path)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Equal(t, r.want, string(out))
		})
	}
}

// A Stop hook written for Claude Code transcripts finds the reply that
// triggered it in a jsonl session.
func TestStopHookReadsTheLastReply(t *testing.T) {
	out := filepath.Join(t.TempDir(), "reply.txt")
	e := newEnv(t, session.FormatJSONL, hook{event: event.Stop, command: sh("last_reply.sh", out)})
	s := e.create(t)
	ctx := context.Background()
	_, err := s.UserPromptSubmit(ctx, "What is 2 + 2")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "It is 4."}}))
	res, err := s.Stop(ctx)
	require.NoError(t, err)
	require.Empty(t, res.Result.Errors)
	reply, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "It is 4.\n", string(reply))
}

// A transcript written by another program (a Claude Code style JSONL sample) resumes, and
// the next event rewrites it in this package's layout.
func TestResumeForeignJSONL(t *testing.T) {
	e := newEnv(t, session.FormatJSONL)
	sample, err := os.ReadFile("../testdata/session/claude_transcript.jsonl")
	require.NoError(t, err)
	dir := filepath.Join(e.home, "sessions")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session_abc12345.jsonl"), sample, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session_abc12345.meta.json"),
		[]byte(`{"id":"imported-abc12345","version":1,"format":"jsonl","metadata":{}}`), 0o600))

	s, err := e.store.Open("imported-abc12345")
	require.NoError(t, err)
	require.Equal(t, []string{"user:text", "assistant:text", "user:text", "assistant:text"}, roles(s.Messages()))
	require.Equal(t, "The answer is 6", s.Messages()[3].Blocks[0].Content)

	_, err = s.UserPromptSubmit(context.Background(), "And 4 + 4?")
	require.NoError(t, err)
	data, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	require.Equal(t, `{"role":"user","content":"What is 2 + 2"}
{"role":"assistant","content":"4"}
{"role":"user","content":"What about 3 + 3"}
{"role":"assistant","content":"The answer is 6"}
{"role":"user","content":"And 4 + 4?"}
`, string(data))
}

func TestShortIDCollision(t *testing.T) {
	e := newEnv(t, session.FormatJSON)
	dir := filepath.Join(e.home, "sessions")
	// Another program's session already owns session_deadbeef.json.
	foreign := []byte(`{"id":"other-deadbeef","version":1,"metadata":{},"state":{"messages":[]}}`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session_deadbeef.json"), foreign, 0o600))

	a, err := e.store.Create("first-deadbeef")
	require.NoError(t, err)
	require.Equal(t, "session_-deadbeef.json", filepath.Base(a.TranscriptPath()))
	b, err := e.store.Create("secnd-deadbeef")
	require.NoError(t, err)
	require.Equal(t, "session_d-deadbeef.json", filepath.Base(b.TranscriptPath()))
	short, err := e.store.Create("deadbeef")
	require.NoError(t, err, "the whole id is free once every shorter suffix is taken")
	require.NotEqual(t, filepath.Join(dir, "session_deadbeef.json"), short.TranscriptPath())

	_, err = a.UserPromptSubmit(context.Background(), "from a")
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, "session_deadbeef.json"))
	require.NoError(t, err)
	require.Equal(t, foreign, data, "another session's file is never overwritten")

	_, err = e.store.Create("first-deadbeef")
	require.ErrorIs(t, err, session.ErrExists)
	st := e.newStore(t, session.FormatJSONL)
	_, err = st.Create("secnd-deadbeef")
	require.ErrorIs(t, err, session.ErrExists, "an id is taken whatever the format")
	for _, s := range []*session.Session{a, b, short} {
		r, err := st.Open(s.ID())
		require.NoError(t, err)
		require.Equal(t, s.TranscriptPath(), r.TranscriptPath())
		require.Equal(t, s.Messages(), r.Messages())
	}
	other, err := st.Open("other-deadbeef")
	require.NoError(t, err)
	require.Empty(t, other.Messages())
}

func TestSessionIDs(t *testing.T) {
	e := newEnv(t, session.FormatJSON)
	for _, bad := range []string{"../../etc/passwd", "a/b", "a.b", "with space", "ünï", "a\x00b", strings.Repeat("x", 129), ".."} {
		_, err := e.store.Create(bad)
		require.ErrorIs(t, err, session.ErrInvalidID, "%q", bad)
		_, err = e.store.Open(bad)
		require.ErrorIs(t, err, session.ErrInvalidID, "%q", bad)
	}
	_, err := e.store.Open("")
	require.ErrorIs(t, err, session.ErrInvalidID)
	long, err := e.store.Create(strings.Repeat("x", 128))
	require.NoError(t, err)
	require.Equal(t, "session_xxxxxxxx.json", filepath.Base(long.TranscriptPath()))

	s, err := e.store.Create("")
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), s.ID())
	same, err := e.store.Open(s.ID())
	require.NoError(t, err)
	require.Same(t, s, same, "one *Session per id, so requests share its lock")
	_, err = e.store.Open("never-created")
	require.ErrorIs(t, err, session.ErrNotFound)
	got, created, err := e.store.OpenOrCreate("fresh-one")
	require.NoError(t, err)
	require.True(t, created)
	again, created, err := e.store.OpenOrCreate("fresh-one")
	require.NoError(t, err)
	require.False(t, created)
	require.Same(t, got, again)
}

func TestExternalChange(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			e := newEnv(t, format)
			s := e.create(t)
			ctx := context.Background()
			_, err := s.UserPromptSubmit(ctx, "hello")
			require.NoError(t, err)
			path := s.TranscriptPath()

			id, changed, err := e.store.ExternalChange(path)
			require.NoError(t, err)
			require.Equal(t, s.ID(), id)
			require.False(t, changed, "the store's own write")

			for _, other := range []string{path + ".journal", filepath.Join(filepath.Dir(path), ".tmp"), "/etc/passwd",
				filepath.Join(filepath.Dir(path), "notes.txt")} {
				id, changed, err := e.store.ExternalChange(other)
				require.NoError(t, err)
				require.False(t, changed, other)
				require.Empty(t, id)
			}

			// Another process appends a message its own way.
			var edited []byte
			if format == session.FormatJSONL {
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				edited = append(data, `{"role":"assistant","content":"hi from elsewhere"}`+"\n"...)
			} else {
				out, err := exec.Command("jq", `.state.messages += [{"role":"assistant","blocks":[{"type":"text","content":"hi from elsewhere"}]}]`, path).Output()
				require.NoError(t, err)
				edited = out
			}
			require.NoError(t, os.WriteFile(path+".new", edited, 0o600))
			require.NoError(t, os.Rename(path+".new", path))

			id, changed, err = e.store.ExternalChange(path)
			require.NoError(t, err)
			require.True(t, changed)
			require.Equal(t, s.ID(), id)
			msgs := s.Messages()
			require.Equal(t, []string{"user:text", "assistant:text"}, roles(msgs))
			require.Equal(t, "hi from elsewhere", msgs[1].Blocks[0].Content)

			// The session goes on from the reloaded state.
			_, err = s.UserPromptSubmit(ctx, "and now?")
			require.NoError(t, err)
			r, err := e.newStore(t, "").Open(s.ID())
			require.NoError(t, err)
			require.Equal(t, s.Messages(), r.Messages())
			_, changed, err = e.store.ExternalChange(path)
			require.NoError(t, err)
			require.False(t, changed)

			// A session file this store has not opened is reported, not loaded.
			other, err := e.newStore(t, format).Create("elsewhere-1")
			require.NoError(t, err)
			id, changed, err = e.store.ExternalChange(other.TranscriptPath())
			require.NoError(t, err)
			require.True(t, changed)
			require.Equal(t, "elsewhere-1", id)
		})
	}
}

func TestClosedSession(t *testing.T) {
	e := newEnv(t, session.FormatJSON)
	s := e.create(t)
	require.NoError(t, s.Close())
	_, err := s.UserPromptSubmit(context.Background(), "late")
	require.True(t, errors.Is(err, session.ErrClosed))
	r, err := e.store.Open(s.ID())
	require.NoError(t, err)
	require.NotSame(t, s, r)
}

// An edit by another process is picked up by the next event even before the
// file watcher reports it, and the watcher's report still says "changed".
func TestExternalEditBeforeTheWatcherReports(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			e := newEnv(t, format)
			s := e.create(t)
			ctx := context.Background()
			_, err := s.UserPromptSubmit(ctx, "hello")
			require.NoError(t, err)
			path := s.TranscriptPath()
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			if format == session.FormatJSONL {
				data = append(data, `{"role":"assistant","content":"edited"}`+"\n"...)
			} else {
				data = bytes.Replace(data, []byte("\n]}}"), []byte(",\n"+`{"role":"assistant","blocks":[{"type":"text","content":"edited"}]}`+"\n]}}"), 1)
			}
			require.NoError(t, os.WriteFile(path, data, 0o600)) // in place, same inode

			_, err = s.UserPromptSubmit(ctx, "next")
			require.NoError(t, err)
			require.Equal(t, []string{"user:text", "assistant:text", "user:text"}, roles(s.Messages()))
			r, err := e.newStore(t, "").Open(s.ID())
			require.NoError(t, err)
			require.Equal(t, s.Messages(), r.Messages())

			id, changed, err := e.store.ExternalChange(path)
			require.NoError(t, err)
			require.True(t, changed)
			require.Equal(t, s.ID(), id)
			_, changed, err = e.store.ExternalChange(path)
			require.NoError(t, err)
			require.False(t, changed)
		})
	}
}

// A hook that rewrites the transcript while it runs cannot make the server
// corrupt it: the session's own state is written whole.
func TestHookRewritingTheTranscript(t *testing.T) {
	rewrite := `f=$(jq -r .transcript_path); jq '.state.messages += [{"role":"assistant","blocks":[]}]' "$f" > "$f.tmp" && mv "$f.tmp" "$f"; echo ctx`
	e := newEnv(t, session.FormatJSON, hook{event: event.UserPromptSubmit, command: rewrite})
	s := e.create(t)
	_, err := s.UserPromptSubmit(context.Background(), "hello")
	require.NoError(t, err)
	require.Equal(t, []string{"user:text", "user:text"}, roles(s.Messages()))
	require.Equal(t, s.Messages(), fileMessages(t, s))
	_, err = s.UserPromptSubmit(context.Background(), "again")
	require.NoError(t, err)
	require.Equal(t, s.Messages(), fileMessages(t, s))
}

// Files removed by another process are written again at the next event.
func TestRemovedFilesComeBack(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			e := newEnv(t, format)
			s := e.create(t)
			ctx := context.Background()
			_, err := s.UserPromptSubmit(ctx, "hello")
			require.NoError(t, err)
			matches, err := filepath.Glob(filepath.Join(e.home, "sessions", "session_*"))
			require.NoError(t, err)
			require.NotEmpty(t, matches)
			for _, m := range matches {
				require.NoError(t, os.Remove(m))
			}
			_, changed, err := e.store.ExternalChange(s.TranscriptPath())
			require.NoError(t, err)
			require.True(t, changed)

			_, err = s.Stop(ctx)
			require.NoError(t, err)
			r, err := e.newStore(t, "").Open(s.ID())
			require.NoError(t, err)
			require.Equal(t, s.Messages(), r.Messages())
		})
	}
}
