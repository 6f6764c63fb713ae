package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/fakemodel"
)

// probeTurns is the fake model's script: one Read of the probe's own file,
// then "Done.".
func probeTurns(target string) [][]fakemodel.Block {
	return [][]fakemodel.Block{{fakemodel.Call("toolu_wavehooks_doctor", "Read", map[string]any{"file_path": target})}}
}

// probeClaudeCLI runs `claude -p` in a temporary project whose
// .claude/settings.json holds the probe hook, against the fake model.
func probeClaudeCLI(ctx context.Context, o Options, bin string) (Status, string) {
	d, err := newProbeDir()
	if err != nil {
		return NotProbed, "cannot make a temporary directory: " + err.Error()
	}
	defer d.close()
	if err := os.Mkdir(filepath.Join(d.project, ".claude"), 0o700); err != nil {
		return NotProbed, err.Error()
	}
	if err := os.WriteFile(filepath.Join(d.project, ".claude", "settings.json"), probeSettings(), 0o600); err != nil {
		return NotProbed, err.Error()
	}
	api, err := fakemodel.StartFakeAPI(probeTurns(d.target), "")
	if err != nil {
		return NotProbed, "cannot listen on loopback: " + err.Error()
	}
	defer api.Close()
	base := "http://" + api.Addr()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.Command(bin, "-p", "wavehooks doctor probe: read probe.txt", "--output-format", "stream-json", "--verbose")
	cmd.Dir = d.project
	cmd.Env = d.env(o, fakemodel.ClaudeEnv(base)...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := startGroup(cmd); err != nil {
		return NotProbed, "cannot start claude: " + err.Error()
	}
	ran := waitGroup(ctx, cmd, 5*time.Second)
	what := "claude -p with a fake model on " + strings.TrimPrefix(base, "http://") + " made one Read call"
	if len(api.Requests()) == 0 {
		what = "claude -p never reached the fake model on " + strings.TrimPrefix(base, "http://")
	}
	return d.verdict(what, ran, stderr.Bytes())
}
