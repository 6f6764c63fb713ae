//go:build !unix

package acp

import (
	"errors"
	"io"
	"syscall"
)

// errWouldBlock is never returned here: no write is tried (nonBlockingConn).
var errWouldBlock = errors.New("would block")

// nonBlockingConn is nil: where writes to a pipe cannot be tried without
// waiting, the editor's reader hands every flush to the worker.
func nonBlockingConn(io.Writer) syscall.RawConn { return nil }

func writeOnce(syscall.RawConn, []byte) (int, error) { return 0, errWouldBlock }
