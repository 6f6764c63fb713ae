package acp

import "github.com/wavehooks/wavehooks/internal/proctest"

// running is whether a process of the test still runs (internal/proctest).
var running = proctest.Alive
