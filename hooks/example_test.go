package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Another host inside this module fires an event through the engine: the
// user's settings load (internal/settings), the matching hooks run in
// parallel with the event's stdin JSON, and their answers combine into
// one Result. Outside the module, the engine is reached through a host
// (lsp over any stream, `wavehooks run`, `wavehooks acp`): its inputs are
// internal types.
func ExampleEngine_Fire() {
	home, _ := os.MkdirTemp("", "wave-home-")
	project, _ := os.MkdirTemp("", "project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	_ = os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "cat >/dev/null; echo 'no recursive deletes' >&2; exit 2"}]}]}}`), 0o600)

	engine := hooks.NewEngine(settings.Load(settings.Paths{WaveHome: home, ProjectRoot: project}, nil))
	defer engine.Close()
	res := engine.Fire(context.Background(), event.Input{Event: event.PreToolUse, SessionID: "s1", ToolName: "Bash",
		ToolUseID: "t1", ToolInput: json.RawMessage(`{"command":"rm -rf build"}`)})
	fmt.Println(res.Permission, "-", res.Reason)
	// Output:
	// deny - no recursive deletes
}
