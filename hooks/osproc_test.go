package hooks_test

import "github.com/wavehooks/wavehooks/internal/proctest"

// The process helpers these tests share with other packages' (internal/proctest).
var (
	alive   = proctest.Alive
	killPid = proctest.Kill
	mkfifo  = proctest.Mkfifo
)
