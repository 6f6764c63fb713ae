package loopback

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// ErrOtherUser is why a connection from another user's socket is refused.
var ErrOtherUser = errors.New("the connection is another user's")

// Refused is told of each connection the listener closed, and why.
type Refused func(from net.Addr, err error)

// SameUser wraps ln, a TCP listener on loopback, so that Accept returns
// only connections made by a socket of this process's user; the others are
// closed and told to refused (nil: not told). Where the owner cannot be
// known (Checked is false), every connection is returned.
func SameUser(ln net.Listener, refused Refused) net.Listener {
	if !Checked {
		return ln
	}
	return &sameUser{Listener: ln, uid: uint32(os.Getuid()), refused: refused}
}

// sameUser is a listener that closes connections of other users.
type sameUser struct {
	net.Listener
	uid     uint32
	refused Refused
}

// Accept returns the next connection of this user, closing the others.
func (l *sameUser) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		err = l.check(c)
		if err == nil {
			return c, nil
		}
		_ = c.Close()
		if l.refused != nil {
			l.refused(c.RemoteAddr(), err)
		}
	}
}

// check is nil when c's other end is a socket of l's user.
func (l *sameUser) check(c net.Conn) error {
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok {
		return fmt.Errorf("not a TCP connection: %s", c.RemoteAddr())
	}
	uid, err := PeerUID(local, remote)
	if err != nil {
		return err
	}
	if uid != l.uid {
		return fmt.Errorf("%w (uid %d)", ErrOtherUser, uid)
	}
	return nil
}
