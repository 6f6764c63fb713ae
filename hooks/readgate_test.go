package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// countingGate is a ReadGate that marks, in a file the hooks can see, that
// it was entered, and counts how often it is inside.
type countingGate struct {
	marker string
	mu     sync.Mutex
	inside int
	enters int
}

func (g *countingGate) Enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inside++
	g.enters++
	_ = os.WriteFile(g.marker, nil, 0o644)
}

func (g *countingGate) Leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inside--
	if g.inside == 0 {
		_ = os.Remove(g.marker)
	}
}

// The session store relies on the gate to know when a hook may be reading
// the transcript: every hook process, synchronous or async, starts inside it
// and the gate is left as often as it is entered.
func TestReadGateSurroundsEveryHookProcess(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "inside")
	check := `test -e '` + marker + `' || { echo started outside the gate >&2; exit 1; }`
	tests := []struct {
		name   string
		hooks  []string // commands; an "async:" prefix makes one async
		enters int
	}{
		{"one hook", []string{check}, 1},
		{"parallel hooks are one batch", []string{check, check + "; true", check + "; :"}, 1},
		{"an async hook enters on its own", []string{check, "async:" + check + "; sleep 0.2"}, 2},
		{"only async hooks", []string{"async:" + check}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var entries []string
			for _, c := range tt.hooks {
				async := strings.HasPrefix(c, "async:")
				c = strings.TrimPrefix(c, "async:")
				entries = append(entries, `{"type":"command","command":`+quoteJSON(c)+`,"async":`+boolJSON(async)+`}`)
			}
			e, root := setup(t, `{"hooks":{"PreToolUse":[{"hooks":[`+strings.Join(entries, ",")+`]}]}}`)
			var errs []string
			e.OnAsyncDone(func(_ event.Input, res hooks.Result) { errs = append(errs, res.Errors...) })
			g := &countingGate{marker: marker}
			res := e.FireGated(context.Background(), input(event.PreToolUse, root), g)
			e.Wait()
			require.Empty(t, res.Errors)
			require.NotEqual(t, hooks.PermissionDeny, res.Permission, res.Reason)
			require.Empty(t, errs, "an async hook started outside the gate")
			require.Equal(t, tt.enters, g.enters)
			require.Zero(t, g.inside, "left as often as entered")
		})
	}
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func boolJSON(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
