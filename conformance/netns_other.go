//go:build !linux

package conformance

import (
	"errors"
	"os/exec"
)

const relayEnv = "WAVEHOOKS_CONFORMANCE_RELAY"

// IsRelay is false where network namespaces do not exist.
func IsRelay() bool { return false }

// NetnsAvailable: network namespaces are Linux's.
func NetnsAvailable() (bool, string) { return false, "network namespaces are Linux only" }

func netnsCommand(port, unixSocket string, argv []string) (*exec.Cmd, error) {
	return nil, errors.New("network namespaces are Linux only")
}

// RelayMain is never called off Linux.
func RelayMain() int { return 111 }
