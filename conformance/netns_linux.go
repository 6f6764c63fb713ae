//go:build linux

package conformance

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The Claude Code CLI runs in a network namespace of its own (`unshare -n`)
// where only the loopback interface exists, so nothing it tries can leave the
// machine. The fake API lives in the test process, outside that namespace:
// the test binary is started again inside it as a relay (RelayMain), which
// brings lo up, listens on 127.0.0.1 at the fake API's port and carries each
// connection to the fake API's Unix socket (a path in the file system, which
// every namespace shares). Then it runs the CLI as its child.

// relayEnv names the variable that makes the test binary a relay:
// "PORT UNIXSOCKET"; the command to run follows in the arguments.
const relayEnv = "WAVEHOOKS_CONFORMANCE_RELAY"

// IsRelay reports whether this process was started as the relay; TestMain
// then calls RelayMain instead of running tests.
func IsRelay() bool { return os.Getenv(relayEnv) != "" }

// NetnsAvailable says whether `unshare -n` works here (as root), or else
// `unshare -rn` (user namespaces), with the reason when neither does.
func NetnsAvailable() (bool, string) {
	path, err := exec.LookPath("unshare")
	if err != nil {
		return false, "unshare is not installed"
	}
	var why []string
	for _, flags := range [][]string{{"-n"}, {"-r", "-n"}} {
		out, err := exec.Command(path, append(flags, "true")...).CombinedOutput()
		if err == nil {
			unshareFlags = flags
			return true, ""
		}
		why = append(why, fmt.Sprintf("unshare %s: %s %v", strings.Join(flags, " "), strings.TrimSpace(string(out)), err))
	}
	return false, strings.Join(why, "; ")
}

// unshareFlags are the flags NetnsAvailable found to work.
var unshareFlags = []string{"-n"}

// netnsCommand wraps argv so that it runs in a new network namespace behind
// the relay to unixSocket, reachable there at 127.0.0.1:port.
func netnsCommand(port, unixSocket string, argv []string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := append(append(append([]string(nil), unshareFlags...), "--", self), argv...)
	cmd := exec.Command("unshare", args...)
	cmd.Env = []string{relayEnv + "=" + port + " " + unixSocket}
	return cmd, nil
}

// RelayMain is the relay's whole life: lo up, forward connections, run the
// command (os.Args[1:]) with the environment minus relayEnv, exit with its code.
func RelayMain() int {
	port, sock, _ := strings.Cut(os.Getenv(relayEnv), " ")
	if err := loopbackUp(); err != nil {
		os.Stderr.WriteString("relay: bringing lo up: " + err.Error() + "\n")
		return 111
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		os.Stderr.WriteString("relay: " + err.Error() + "\n")
		return 111
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go forward(c, sock)
		}
	}()
	if len(os.Args) < 2 {
		os.Stderr.WriteString("relay: no command\n")
		return 111
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, relayEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	default:
		os.Stderr.WriteString("relay: " + err.Error() + "\n")
		return 111
	}
}

func forward(c net.Conn, sock string) {
	defer c.Close()
	u, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer u.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(u, c)
		_ = u.(*net.UnixConn).CloseWrite()
	}()
	_, _ = io.Copy(c, u)
	_ = c.(*net.TCPConn).CloseWrite()
	wg.Wait()
}

// loopbackUp sets the IFF_UP flag of lo, the only interface of a new namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
