package trust

import "github.com/wavehooks/wavehooks/internal/proctest"

var mkfifo = proctest.Mkfifo
