package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBuildInfoVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name              string
		ldVersion, commit string
		info              *debug.BuildInfo
		want              versionInfo
	}{
		{"make build: ldflags win over build info", "v0.2.0-3-g1a2b3c4", "1a2b3c4d5e6f7a8b",
			&debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs("ffff", "true")},
			versionInfo{Version: "v0.2.0-3-g1a2b3c4", Commit: "1a2b3c4d5e6f7a8b"}},
		{"make build in a changed tree", "v0.2.0-dirty", "1a2b3c4d5e6f7a8b", nil,
			versionInfo{Version: "v0.2.0-dirty", Commit: "1a2b3c4d5e6f7a8b", Modified: true}},
		{"go install module@version", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}},
			versionInfo{Version: "v0.3.1"}},
		{"go build in a checkout: vcs stamping", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abcdef0123456789abcdef", "true")},
			versionInfo{Version: devVersion, Commit: "abcdef0123456789abcdef", Modified: true}},
		{"go build with -buildvcs=false", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			versionInfo{Version: devVersion}},
		{"no build info at all", "", "", nil, versionInfo{Version: devVersion}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, buildInfoVersion(tt.ldVersion, tt.commit, tt.info))
		})
	}
}

func TestVersionString(t *testing.T) {
	platform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		v          versionInfo
		want, wire string
	}{
		{versionInfo{Version: "v0.2.0", Commit: "1a2b3c4d5e6f7a8b9c0d"},
			"v0.2.0 (commit 1a2b3c4d5e6f, " + platform + ")", "v0.2.0 (1a2b3c4d5e6f)"},
		{versionInfo{Version: devVersion, Commit: "abc1234", Modified: true},
			devVersion + " (commit abc1234, modified, " + platform + ")", devVersion + " (abc1234)"},
		{versionInfo{Version: "v0.2.0-dirty", Commit: "abc1234", Modified: true},
			"v0.2.0-dirty (commit abc1234, " + platform + ")", "v0.2.0-dirty (abc1234)"},
		{versionInfo{Version: devVersion}, devVersion + " (commit unknown, " + platform + ")", devVersion},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.v.String())
		require.Equal(t, tt.wire, tt.v.serverVersion())
	}
}

// TestVersionLdflags builds the binary as `make build` does and checks that
// `wavehooks version` reports what the flags set.
func TestVersionLdflags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "wavehooks")
	ld := "-X main.version=v1.2.3-test -X main.commit=0123456789abcdef0123"
	out, err := exec.Command("go", "build", "-ldflags", ld, "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	for _, arg := range []string{"version", "--version"} {
		out, err = exec.Command(bin, arg).Output()
		require.NoError(t, err)
		line := strings.TrimSpace(string(out))
		require.True(t, strings.HasPrefix(line, "wavehooks v1.2.3-test (commit 0123456789ab, go"), line)
	}
}
