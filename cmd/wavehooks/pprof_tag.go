//go:build wavehooks_pprof

package main

import (
	"os"
	"runtime/pprof"
)

// With the wavehooks_pprof build tag, WAVEHOOKS_CPUPROFILE names a file the
// process writes its CPU profile to when run returns: how the proxy's and
// the server's per-message costs are found (docs/performance.md). Release
// builds have no such switch.
func init() {
	path := os.Getenv("WAVEHOOKS_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if pprof.StartCPUProfile(f) != nil {
		_ = f.Close()
		return
	}
	stopProfile = func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
