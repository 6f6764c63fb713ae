package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/safetext"
)

// markerEnv names the file the probe hook appends its stdin to. The hook
// reads it from its environment, so no path is ever spliced into a command.
const markerEnv = "WAVEHOOKS_DOCTOR_MARKER"

// probeHookCommand is the probe hook: it appends the event's stdin to the
// marker file and allows the call by saying nothing. Only sh's builtins, so
// it runs whatever the user's PATH holds: the probe asks whether a hook
// fires, not whether cat is installed.
const probeHookCommand = `while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; done >> "$` + markerEnv + `"`

// probeSettings is a settings file (wavehooks' or Claude Code's: the same
// shape) whose one hook is the probe hook on every tool's PreToolUse.
func probeSettings() []byte {
	b, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": probeHookCommand, "timeout": 30}}}}}}, "", "  ")
	return b
}

// probeFileText is what the probe's tool call reads: a file of its own.
const probeFileText = "wavehooks doctor probe\n"

// probeDir is one probe's temporary world: an empty HOME, TMPDIR, a
// project with one file to read, and the marker the hook writes.
type probeDir struct {
	root, home, tmp, project, marker, target string
}

// newProbeWaveHome is a probe directory with a wave home in it whose
// settings hold the probe hook, for the probes through wavehooks itself.
func newProbeWaveHome() (d *probeDir, waveHome string, err error) {
	d, err = newProbeDir()
	if err != nil {
		return nil, "", fmt.Errorf("cannot make a temporary directory: %w", err)
	}
	waveHome = filepath.Join(d.root, "wave")
	if err = os.Mkdir(waveHome, 0o700); err == nil {
		err = os.WriteFile(filepath.Join(waveHome, "settings.json"), probeSettings(), 0o600)
	}
	if err != nil {
		d.close()
		return nil, "", err
	}
	return d, waveHome, nil
}

func newProbeDir() (*probeDir, error) {
	root, err := os.MkdirTemp("", "wavehooks-doctor-")
	if err != nil {
		return nil, err
	}
	d := &probeDir{root: root, home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"),
		project: filepath.Join(root, "project"), marker: filepath.Join(root, "marker.jsonl")}
	d.target = filepath.Join(d.project, "probe.txt")
	for _, dir := range []string{d.home, d.tmp, d.project} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			d.close()
			return nil, err
		}
	}
	if err := os.WriteFile(d.target, []byte(probeFileText), 0o600); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *probeDir) close() { _ = os.RemoveAll(d.root) }

// env is the environment of a probe's process: nothing of the user's but
// PATH, so no key, proxy or setting of theirs reaches the agent.
func (d *probeDir) env(o Options, extra ...string) []string {
	env := []string{"PATH=" + o.PATH, "HOME=" + d.home, "TMPDIR=" + d.tmp, "LANG=C.UTF-8", markerEnv + "=" + d.marker}
	return append(env, extra...)
}

// hookRuns is the PreToolUse stdins the probe hook appended to the marker.
func (d *probeDir) hookRuns() []map[string]any {
	text, err := safefile.ReadFile(d.marker, 1<<20)
	if err != nil {
		return nil
	}
	var runs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(text))
	for {
		var m map[string]any
		if dec.Decode(&m) != nil {
			return runs
		}
		if m["hook_event_name"] == "PreToolUse" {
			runs = append(runs, m)
		}
	}
}

// errTimedOut is a probe that ran out of its time: it proved nothing
// either way (a loaded machine, an agent slow to start), so it reads NOT
// PROBED, not DOES NOT FIRE.
var errTimedOut = errors.New("timed out")

// verdict says FIRES when the probe hook ran, with what it was told; NOT
// PROBED when the probe timed out first; DOES NOT FIRE otherwise.
func (d *probeDir) verdict(what string, ran error, stderr []byte) (Status, string) {
	if runs := d.hookRuns(); len(runs) > 0 {
		var tools []string
		for _, r := range runs {
			if name, _ := r["tool_name"].(string); name != "" && !slices.Contains(tools, name) {
				tools = append(tools, safetext.Line(name, 60))
			}
		}
		return Fires, fmt.Sprintf("%s; the probe hook ran on PreToolUse for %s", what, strings.Join(tools, ", "))
	}
	if errors.Is(ran, errTimedOut) {
		return NotProbed, what + "; the probe ran out of time (" + safetext.Line(ran.Error(), 200) + ") before the hook could run: raise --timeout on a slow machine"
	}
	why := "the probe hook did not run"
	if ran != nil {
		why += " (" + safetext.Line(ran.Error(), 200) + ")"
	}
	if last := lastLine(stderr); last != "" {
		why += "; last stderr line: " + last
	}
	return DoesNotFire, what + "; " + why
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return safetext.Line(lines[len(lines)-1], 200)
}

// finishReading waits for the reader of a probe's stdout to see its end,
// which a process that left the probe's process group (setsid) and kept
// the pipe would hold off forever: after a moment the pipe is closed under
// it.
func finishReading(out *os.File, done <-chan struct{}) {
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = out.Close()
		<-done
	}
}

// tailBuffer keeps the last 64 KiB written to it: an agent's stderr, of
// which the report shows the last line, over a probe that may run for
// minutes.
type tailBuffer struct{ b []byte }

const tailBufferBytes = 64 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailBufferBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBufferBytes:]...)
	}
	return len(p), nil
}

// Bytes is what the buffer holds.
func (t *tailBuffer) Bytes() []byte { return t.b }
