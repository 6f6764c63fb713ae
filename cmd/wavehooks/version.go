package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set at build time by `make build` / `make dist`:
//
//	-ldflags "-X main.version=$(git describe --tags --dirty) -X main.commit=$(git rev-parse HEAD)"
//
// A plain `go build` or `go install module@version` leaves them empty, and
// the build information Go stamps into every binary fills them in
// (buildInfoVersion).
var (
	version string
	commit  string
)

// devVersion is what a build with neither ldflags nor a module version says.
const devVersion = "0.1.0-dev"

// versionInfo is what `wavehooks version` reports and the server sends as
// serverInfo.version: which release, and which commit it was built from, so
// that a bug report names the exact code.
type versionInfo struct {
	Version  string // a release tag, `git describe` output, or devVersion
	Commit   string // the full or abbreviated commit hash; "" when unknown
	Modified bool   // built from a tree with uncommitted changes
}

// currentVersion is this binary's version: the ldflags when set, else what
// Go recorded in the binary.
func currentVersion() versionInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return buildInfoVersion(version, commit, info)
}

// buildInfoVersion picks each field from the ldflags when they set it, else
// from the build information: the main module's version (set by `go install
// module@vX.Y.Z`, or derived from the VCS by Go 1.24+ builds) and the vcs.*
// settings (stamped by `go build` inside a git checkout unless -buildvcs=false).
func buildInfoVersion(ldVersion, ldCommit string, info *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: ldVersion, Commit: ldCommit}
	if strings.HasSuffix(v.Version, "-dirty") {
		v.Modified = true
	}
	if info == nil {
		if v.Version == "" {
			v.Version = devVersion
		}
		return v
	}
	if v.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v.Version = info.Main.Version
	}
	if v.Version == "" {
		v.Version = devVersion
	}
	if v.Commit == "" {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = v.Modified || s.Value == "true"
			}
		}
	}
	if strings.HasSuffix(v.Version, "+dirty") {
		v.Modified = true
	}
	return v
}

// String is the one line `wavehooks version` prints, e.g.
// "0.2.0 (commit 1a2b3c4d5e6f, go1.26.8 linux/amd64)".
func (v versionInfo) String() string {
	var details []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified && !strings.HasSuffix(v.Version, "dirty") {
			c += ", modified"
		}
		details = append(details, "commit "+c)
	} else {
		details = append(details, "commit unknown")
	}
	details = append(details, fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH))
	return v.Version + " (" + strings.Join(details, ", ") + ")"
}

// serverVersion is the short form sent to editors as serverInfo.version:
// the version and the abbreviated commit.
func (v versionInfo) serverVersion() string {
	if v.Commit == "" {
		return v.Version
	}
	c := v.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return v.Version + " (" + c + ")"
}
