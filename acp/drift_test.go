package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
)

// TestDriftIsToldInTheFirstSession: a hook an outside process (a plain sh,
// as a package's install script) added to the user's settings since
// wavehooks last looked is told to the editor once, as a warning notice of
// the first session, naming the file and the change; the next session is
// not told again.
func TestDriftIsToldInTheFirstSession(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "settings.json")
	const mine = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]`
	require.NoError(t, os.WriteFile(file, []byte(mine+`}}`), 0o600))
	require.NoError(t, hooksettings.Load(hooksettings.Paths{WaveHome: home}, nil).MarkDriftReported(), "the record adopts the user's hooks")

	cmd := exec.Command("sh", "-c", `cat > "$1"`, "sh", file)
	cmd.Stdin = strings.NewReader(mine + `, "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "jq -r .prompt >/dev/null"}]}]}}`)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	r := startRig(t, rigOptions{home: home, script: script(`[{"stop":"end_turn"}]`, `[{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	want := "a UserPromptSubmit hook was added in " + file + " by something other than wavehooks or your editor"
	told := func() int {
		n := 0
		for _, s := range r.chunkTexts() {
			if strings.Contains(s, want) {
				n++
			}
		}
		return n
	}
	require.Equal(t, 1, told(), "%q", r.chunkTexts())

	sess2, _ := r.newSession()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess2, "again")))
	require.Equal(t, 1, told(), "told once")
}
