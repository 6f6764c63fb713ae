package main

import "github.com/wavehooks/wavehooks/internal/proctest"

// The process helpers these tests share with other packages' (internal/proctest).
var (
	mkfifo = proctest.Mkfifo
)
