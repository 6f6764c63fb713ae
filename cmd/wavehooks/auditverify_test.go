package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/audit"
)

// auditLines are the lines of a wave home's current audit file.
func auditLines(t *testing.T, home string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(audit.Dir(home), "audit.jsonl"))
	require.NoError(t, err)
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func writeAuditLines(t *testing.T, home string, lines [][]byte, end string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(audit.Dir(home), "audit.jsonl"), append(bytes.Join(lines, []byte("\n")), end...), 0o600))
}

// `wavehooks log --verify` proves the audit log's chain: exit 0 and "N
// records, chain intact" for a log as written (rotated or not, with a line
// a crash cut short); exit 1 naming the first record that was changed,
// removed, inserted or reordered, by its number and file:line, for a log
// edited afterwards, and for a chain rewritten whole by someone without
// the key.
func TestLogVerify(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max      int64 // the log's file bound; 0 for the default
		records  int
		tamper   func(t *testing.T, home string)
		args     []string // more of `log --verify`'s flags
		wantCode int
		want     []string
		wantErr  string
	}{
		{name: "as written", records: 5, wantCode: 0, want: []string{"5 records, chain intact"}},
		{name: "rotated", records: 30, max: 2 << 10, wantCode: 0, want: []string{"30 records, chain intact"}},
		{name: "a field edited", records: 5, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			l[2] = bytes.Replace(l[2], []byte(`"answer":"deny"`), []byte(`"answer":"allow"`), 1)
			writeAuditLines(t, home, l, "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:3: record 3 was changed: its MAC does not match its bytes"}},
		{name: "a field edited, checked without the key", records: 5, args: []string{"--chain-only"}, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			l[2] = bytes.Replace(l[2], []byte(`"answer":"deny"`), []byte(`"answer":"allow"`), 1)
			writeAuditLines(t, home, l, "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:3: record 3 was changed: its bytes no longer hash to the prev of record 4"}},
		{name: "the key removed", records: 5, tamper: func(t *testing.T, home string) {
			require.NoError(t, os.Remove(audit.KeyPath(audit.Dir(home))))
		}, wantCode: 2, wantErr: "no audit key at"},
		{name: "the key removed, the chain alone checked", records: 5, args: []string{"--chain-only"}, tamper: func(t *testing.T, home string) {
			require.NoError(t, os.Remove(audit.KeyPath(audit.Dir(home))))
		}, wantCode: 0, want: []string{"5 records, chain intact (--chain-only: the MACs were not checked)"}},
		{name: "a record deleted", records: 5, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			writeAuditLines(t, home, append(l[:2:2], l[3:]...), "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:3: record 3 was removed: record 3 is missing before record 4"}},
		{name: "two records swapped", records: 5, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			l[1], l[2] = l[2], l[1]
			writeAuditLines(t, home, l, "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:2: record 3 was reordered: it comes before record 2"}},
		{name: "a record copied in", records: 5, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			writeAuditLines(t, home, append(l[:4:4], l[0], l[4]), "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:5: record 1 was inserted: record 1 is already at audit.jsonl:1"}},
		{name: "a forged record inserted", records: 5, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			forged := bytes.Replace(l[2], []byte(`"answer":"deny"`), []byte(`"answer":"allow"`), 1)
			writeAuditLines(t, home, append(l[:2:2], append([][]byte{forged}, l[2:]...)...), "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:3: record 3 was inserted"}},
		{name: "the last line cut by a crash", records: 5, tamper: func(t *testing.T, home string) {
			l := auditLines(t, home)
			l[4] = l[4][:len(l[4])/2]
			writeAuditLines(t, home, l, "")
		}, wantCode: 0, want: []string{"audit.jsonl:5: a torn line", "4 records, chain intact"}},
		{name: "the chain rewritten without the key", records: 5, tamper: func(t *testing.T, home string) {
			prev := ""
			var out [][]byte
			for _, line := range auditLines(t, home) {
				var r audit.Record
				require.NoError(t, json.Unmarshal(line, &r))
				r.Answer, r.MAC, r.Prev = "allow", "", prev
				b, err := json.Marshal(r)
				require.NoError(t, err)
				sum := sha256.Sum256(b)
				prev, out = hex.EncodeToString(sum[:]), append(out, b)
			}
			writeAuditLines(t, home, out, "\n")
		}, wantCode: 1, want: []string{"audit.jsonl:1: record 1 was changed: it carries no MAC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newCLIEnv(t, `{}`)
			l, err := audit.Open(audit.Dir(env.home), audit.HostCLI, audit.Options{MaxFileBytes: tc.max})
			require.NoError(t, err)
			for i := range tc.records {
				require.NoError(t, l.Append(audit.Record{Kind: audit.KindRun, Event: "PreToolUse", Tool: "Bash",
					Session: "s" + strconv.Itoa(i), Answer: "deny", By: "hooks", Reason: "no rm -rf"}))
			}
			if tc.tamper != nil {
				tc.tamper(t, env.home)
			}
			out, stderr, code := env.run(t, "", append([]string{"log", "--verify"}, tc.args...)...)
			require.Equal(t, tc.wantCode, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
			for _, w := range tc.want {
				require.Contains(t, out, w)
			}
			require.Contains(t, stderr, tc.wantErr)
		})
	}
}

// `wavehooks run` records its decision in the audit log like the hosts:
// the event, the tool, the hook and where it came from, the hash of the
// whole input the hook read, the answer, and who gave it.
func TestRunRecordsItsDecisionInTheAuditLog(t *testing.T) {
	env := newCLIEnv(t, demoSettings)
	input := `{"session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`
	_, stderr, code := env.run(t, input, "run", "PreToolUse")
	require.Equal(t, 0, code, stderr)
	recs, err := audit.Records(audit.Dir(env.home))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	r := recs[0]
	require.Equal(t, audit.HostCLI, r.Host)
	require.Equal(t, "PreToolUse", r.Event)
	require.Equal(t, "Bash", r.Tool)
	require.Equal(t, "deny", r.Answer)
	require.Equal(t, "hooks", r.By)
	require.Len(t, r.Hooks, 1)
	require.True(t, strings.HasSuffix(r.Hooks[0].Command, "deny-rm.sh"))
	require.Equal(t, "user", r.Hooks[0].Source)
	require.False(t, r.Managed)
	require.Len(t, r.InputSHA256, 64)

	out, _, code := env.run(t, "", "log", "--verify")
	require.Equal(t, 0, code)
	require.Equal(t, "1 records, chain intact\n", out)
	st, err := os.Stat(audit.Dir(env.home))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	for _, f := range []string{"audit.jsonl", "key"} {
		st, err := os.Stat(filepath.Join(audit.Dir(env.home), f))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), f)
	}
}

// --verify proves the whole log: a filter that would leave records out is
// refused rather than ignored, and a key that is no key is a clear error.
func TestLogVerifyRefusesWhatItCannotHonour(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	bad := filepath.Join(env.home, "notakey")
	require.NoError(t, os.WriteFile(bad, []byte("hello\n"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "--verify", "--session", "s1"}, "it takes --key, --chain-only and --wave-home, not --session"},
		{[]string{"log", "--verify", "--chain-only", "--key", bad}, "--chain-only checks without a key: it cannot be used with --key"},
		{[]string{"log", "--verify", "--follow"}, "not --follow"},
		{[]string{"log", "--verify", "--key", bad}, "not an audit key (64 hex digits)"},
		{[]string{"log", "--key", bad}, "--key and --chain-only are for --verify"},
		{[]string{"log", "--chain-only"}, "--key and --chain-only are for --verify"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := env.run(t, "", tc.args...)
			require.Equal(t, 2, code)
			require.Contains(t, stderr, tc.want)
		})
	}
}

// A record says whether a hook of the managed (policy) settings decided:
// the security group tells its own guard's decisions from the user's.
func TestAuditRecordSaysAManagedHookDecided(t *testing.T) {
	project := t.TempDir()
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	require.NoError(t, os.WriteFile(managed, []byte(strings.ReplaceAll(`{"hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh"}]}]}}`, "$SCRIPTS", scriptsDir)), 0o644))
	for _, tc := range []struct {
		name        string
		managedFile string
		wantManaged bool
	}{
		{"without a managed file", filepath.Join(t.TempDir(), "none.json"), false},
		{"with the managed guard", managed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}]}}`), 0o644))
			cmd := exec.Command(e2eBinary(t), "run", "PreToolUse")
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "WAVE_HOME="+home, "HOME="+home, "WAVE_MANAGED_SETTINGS="+tc.managedFile)
			cmd.Stdin = strings.NewReader(`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			recs, err := audit.Records(audit.Dir(home))
			require.NoError(t, err)
			require.Len(t, recs, 1)
			require.Equal(t, tc.wantManaged, recs[0].Managed)
			sources := map[string]bool{}
			for _, h := range recs[0].Hooks {
				sources[h.Source] = h.Managed
			}
			require.False(t, sources["user"], "the user's hook is not managed")
			if tc.wantManaged {
				require.Equal(t, "deny", recs[0].Answer)
				require.True(t, sources["managed"])
			}
		})
	}
}

// An async hook of `wavehooks run` is recorded twice: with the event (it
// matched, and started in the background) and when it ends, with the hash
// of the same whole input.
func TestRunRecordsAnAsyncHookWhenItEnds(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "async": true, "command": "cat > /dev/null; exit 0"}]}]}}`)
	_, stderr, code := env.run(t, `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":""}}`, "run", "PostToolUse")
	require.Equal(t, 0, code, stderr)
	recs, err := audit.Records(audit.Dir(env.home))
	require.NoError(t, err)
	require.Len(t, recs, 2, "the event, then the async hook's run")
	require.False(t, recs[0].Hooks[0].Ran, "started in the background")
	require.True(t, recs[1].Hooks[0].Ran)
	require.Len(t, recs[1].InputSHA256, 64)
	require.Equal(t, recs[0].InputSHA256, recs[1].InputSHA256)
}
