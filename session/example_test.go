package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wavehooks/wavehooks/session"
)

// A host keeps a conversation in a store: what the model said goes into
// the session, and the transcript hooks read (transcript_path) holds it on
// disk, here in the json format, .state.messages, as seed 001 reads it.
func ExampleStore() {
	home, _ := os.MkdirTemp("", "wave-home-")
	defer os.RemoveAll(home)
	store, err := session.NewStore(session.Options{WaveHome: home, ProjectRoot: home})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	s, _ := store.Create("example-session-0001")
	_, _ = s.UserPromptSubmit(context.Background(), "list the files")
	_ = s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "Here they are."}})

	data, _ := os.ReadFile(s.TranscriptPath())
	var file struct {
		State struct {
			Messages []struct {
				Role   string `json:"role"`
				Blocks []struct {
					Content string `json:"content"`
				} `json:"blocks"`
			} `json:"messages"`
		} `json:"state"`
	}
	_ = json.Unmarshal(data, &file)
	fmt.Println(filepath.Base(s.TranscriptPath()))
	for _, m := range file.State.Messages {
		fmt.Println(m.Role+":", m.Blocks[0].Content)
	}
	// Output:
	// session_ion-0001.json
	// user: list the files
	// assistant: Here they are.
}
