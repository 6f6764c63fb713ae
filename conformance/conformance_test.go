//go:build linux

package conformance

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	update = flag.Bool("update", false, "rewrite the results table in docs/conformance.md")
	keep   = flag.String("keep", "", "keep every scenario's files (projects, records, the CLI's output) under this directory")
	// measure adds the measurement scenarios (scenarios.go measureScenarios),
	// whose results are read from their files, not compared; the table is not checked.
	measure = flag.Bool("measure", false, "also play the measurement scenarios (read their files with -keep); docs/conformance.md is not checked")
)

// repoRoot is the repository's top directory (the tests run in conformance/).
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	return root
}

// claudeBinary finds the CLI of ClaudeVersion in its own cache directory,
// installing it with the suite's script when it is missing; when that fails
// too, the suite is skipped with the reason.
func claudeBinary(t *testing.T, root string) string {
	dir := filepath.Join(root, ".cache", "claude-code-"+ClaudeVersion)
	bin, err := FindClaude(dir)
	if err == nil && claudeVersionOK(bin) {
		return bin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, installErr := installCommand(ctx, root, dir).CombinedOutput()
	if installErr == nil {
		if bin, err = FindClaude(dir); err == nil {
			require.True(t, claudeVersionOK(bin), "%s is not Claude Code %s", bin, ClaudeVersion)
			return bin
		}
	}
	reason := fmt.Sprintf("the Claude Code CLI %s could not be installed (%v %v): %s", ClaudeVersion, installErr, err, tail(out))
	fmt.Println("SKIPPED: conformance suite:", reason)
	t.Skip("SKIPPED: " + reason)
	return ""
}

// installCommand runs the install script for ClaudeVersion into dir.
func installCommand(ctx context.Context, root, dir string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(root, "conformance", "install-claude-code.sh"))
	cmd.Env = append(os.Environ(), "CLAUDE_CODE_VERSION="+ClaudeVersion, "CLAUDE_CODE_DIR="+dir)
	return cmd
}

func claudeVersionOK(bin string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	return err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), ClaudeVersion+" ")
}

// buildWavehooks builds the binary under test.
func buildWavehooks(t *testing.T, root string) string {
	goBin := "go" // the toolchain on PATH, as make runs it
	bin := filepath.Join(t.TempDir(), "wavehooks")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/wavehooks")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// TestConformance plays every scenario through Claude Code and through
// wavehooks, compares them row by row against the known differences, and
// checks (or, with -update, writes) the table in docs/conformance.md.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite runs the real Claude Code CLI: skipped with -short")
	}
	root := repoRoot(t)
	claude := claudeBinary(t, root)
	wavehooks := buildWavehooks(t, root)
	netns, why := NetnsAvailable()
	if os.Getenv("WAVEHOOKS_CONFORMANCE_NETNS") == "off" {
		netns, why = false, "WAVEHOOKS_CONFORMANCE_NETNS=off"
	}
	if !netns {
		t.Logf("the CLI runs without a network namespace of its own: %s (the proxy settings still keep it offline)", why)
	}
	oracle := &Oracle{Binary: claude, Netns: netns, Timeout: 2 * time.Minute}
	wave := &Wave{Binary: wavehooks, Timeout: 2 * time.Minute}

	// At most two sessions at a time, whatever -parallel says: each CLI run
	// is a heavy process, and the machine is shared.
	slots := make(chan struct{}, 2)
	scenarios := Scenarios
	if *measure {
		scenarios = append(slices.Clone(Scenarios), measureScenarios...)
	}
	results := make([][]Row, len(scenarios))
	t.Run("scenarios", func(t *testing.T) {
		for i := range scenarios {
			s := &scenarios[i]
			t.Run(s.Name, func(t *testing.T) {
				if s.Since != "" && !versionAtLeast(ClaudeVersion, s.Since) {
					results[i] = []Row{} // played, by the run's choice, as nothing
					t.Skipf("Claude Code %s predates what this scenario plays (since %s)", ClaudeVersion, s.Since)
				}
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				dir := t.TempDir()
				if *keep != "" {
					dir = filepath.Join(*keep, s.Name)
					require.NoError(t, os.RemoveAll(dir))
				}
				sockDir, err := os.MkdirTemp("", "whc-")
				require.NoError(t, err)
				defer os.RemoveAll(sockDir)
				ctx := context.Background()
				began := time.Now()
				co, err := oracle.Run(ctx, s, filepath.Join(dir, "claude"), sockDir)
				require.NoError(t, err, "Claude Code")
				require.NoError(t, CheckStopFeedback(ClaudeVersion, s, co))
				mid := time.Now()
				wo, err := wave.Run(ctx, s, filepath.Join(dir, "wavehooks"), co)
				require.NoError(t, err, "wavehooks")
				t.Logf("Claude Code %v, wavehooks %v", mid.Sub(began).Round(time.Millisecond), time.Since(mid).Round(time.Millisecond))
				rows := Compare(s, co, wo)
				for _, name := range s.Replay {
					h, _ := s.hookByName(name)
					items, err := Replay(ctx, wavehooks, s, name, co.Calls[name], filepath.Join(dir, "replay-"+name))
					require.NoError(t, err, "replay of %s", name)
					rows = append(rows, itemRow(s.Name, "replay of "+h.Event+" ("+name+")", items))
				}
				results[i] = rows
			})
		}
	})
	if t.Failed() {
		return
	}
	var rows []Row
	full := true
	for _, r := range results {
		if r == nil {
			full = false // a -run pattern chose some scenarios only
		}
		rows = append(rows, r...)
	}
	verdicts := Judge(rows)
	for _, v := range verdicts {
		if v.Problem != "" {
			t.Errorf("%s: %s", v.ID(), v.Problem)
		}
	}
	if *measure {
		t.Log("-measure: the measurement scenarios' rows are not compared with docs/conformance.md")
		return
	}
	if !full {
		t.Log("some scenarios only: the allow-list's unused entries and docs/conformance.md are not checked")
		return
	}
	// An entry may concern only scenarios another release skips (Since):
	// unused entries are judged against the pinned release.
	for _, key := range StaleItems(verdicts) {
		if ClaudeVersion == PinnedClaudeVersion {
			t.Errorf("knownItems[%q] explains no difference any more: remove it", key)
		}
	}
	if ClaudeVersion != PinnedClaudeVersion {
		// docs/conformance.md holds the pinned release's table; another
		// release's run is written beside it, to compare.
		require.False(t, *update, "-update writes the table of the pinned Claude Code %s, not of %s", PinnedClaudeVersion, ClaudeVersion)
		out := filepath.Join(root, "docs", "conformance-"+ClaudeVersion+".md.tmp")
		require.NoError(t, os.WriteFile(out, []byte(Render(verdicts)), 0o644))
		t.Logf("Claude Code %s is not the pinned %s: docs/conformance.md is not checked; this run's table is in %s", ClaudeVersion, PinnedClaudeVersion, out)
		return
	}
	docPath := filepath.Join(root, "docs", "conformance.md")
	doc, err := os.ReadFile(docPath)
	require.NoError(t, err)
	table := Render(verdicts)
	updated, err := ReplaceTable(string(doc), table)
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(docPath, []byte(updated), 0o644))
		return
	}
	if CurrentTable(string(doc)) != table {
		_ = os.WriteFile(docPath+".tmp", []byte(updated), 0o644) // gitignored, to compare with
		t.Errorf("docs/conformance.md does not hold this run's results (they are in docs/conformance.md.tmp): " +
			"run `go test ./conformance -run TestConformance -update`")
	}
}
