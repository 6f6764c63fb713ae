//go:build !unix

package session

import "time"

// cpuTime is not measured where getrusage is missing (the benchmark runs on Linux).
func cpuTime() time.Duration { return 0 }
