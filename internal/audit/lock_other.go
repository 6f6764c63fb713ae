//go:build !unix && !windows

package audit

import "sync"

// otherLock orders this process's appends on a platform with no file lock:
// two processes sharing a wave home there may fork the chain, which
// Verify reports.
var otherLock sync.Mutex

// lockDir takes the process's lock of the log.
func lockDir(string) (func(), error) {
	otherLock.Lock()
	return otherLock.Unlock, nil
}
