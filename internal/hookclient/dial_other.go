//go:build !unix

package hookclient

import (
	"net"
	"time"
)

// dialTimeout bounds the connect: a proxy that exists accepts at once.
const dialTimeout = 10 * time.Second

// dial connects to the proxy's unix socket through net (AF_UNIX on
// Windows 10 and later), which links no cgo there.
func dial(path string) (conn, error) {
	c, err := net.DialTimeout("unix", path, dialTimeout)
	if err != nil {
		return nil, err
	}
	return c.(*net.UnixConn), nil
}
