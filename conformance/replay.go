//go:build linux

package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Replay feeds each stdin Claude Code gave a hook to `wavehooks run EVENT`,
// as an agent host that builds Claude Code's stdin itself would, with only
// that hook configured, and compares what the hook then reads with what it
// read under Claude Code: the same keys, values and key order.
func Replay(ctx context.Context, bin string, s *Scenario, hookName string, calls []HookCall, dir string) ([]Item, error) {
	h, ok := s.hookByName(hookName)
	if !ok {
		return nil, fmt.Errorf("no hook %q", hookName)
	}
	proj, home, waveHome := filepath.Join(dir, "project"), filepath.Join(dir, "home"), filepath.Join(dir, "wavehome")
	only := &Scenario{Name: s.Name, Hooks: []Hook{h}}
	if err := only.WriteProject(proj); err != nil {
		return nil, err
	}
	for _, d := range []string{home, waveHome, filepath.Join(proj, ".wave")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".wave", "settings.json"), []byte(`{"importClaudeHooks": true}`+"\n"), 0o644); err != nil {
		return nil, err
	}
	for _, c := range calls {
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		cmd := exec.CommandContext(ctx, bin, "run", h.Event, "--project", proj, "--wave-home", waveHome, "--trust-workspace")
		cmd.Dir = proj
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
			"WAVE_MANAGED_SETTINGS=" + filepath.Join(dir, "no-managed-settings.json")}
		cmd.Stdin = bytes.NewReader(append(append([]byte(nil), c.Stdin...), '\n'))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("wavehooks run %s: %v: %s", h.Event, err, tail(out.Bytes()))
		}
	}
	got, err := only.ReadCalls(proj)
	if err != nil {
		return nil, err
	}
	if len(got[hookName]) != len(calls) {
		return []Item{{Key: "replay ran", Text: fmt.Sprintf("the hook ran %d times for %d replayed inputs", len(got[hookName]), len(calls))}}, nil
	}
	var items []Item
	seen := map[string]bool{}
	for i, c := range calls {
		for _, it := range diffObjects("replay ", c.Stdin, got[hookName][i].Stdin, strings.NewReplacer(), nil) {
			if !seen[it.Key+it.Text] {
				seen[it.Key+it.Text] = true
				items = append(items, it)
			}
		}
	}
	return items, nil
}
