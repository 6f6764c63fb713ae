// Package loopback keeps other local users off a loopback TCP endpoint.
//
// Any user of a machine can connect to 127.0.0.1, unlike a unix socket in a
// 0700 directory. The ACP proxy's http hook bridge (acp/bridgehttp.go)
// listens there because Claude Code's http hooks cost no process; its
// secret already keeps other users from being answered, and this package
// keeps them from being served at all: a connection whose other end is
// not a socket of this process's user is closed as it is accepted.
//
// On Linux the owner of the connecting socket is asked of the kernel: by
// one sock_diag lookup over netlink of the socket whose local address is
// the peer's and whose remote address is ours (what `ss` does), else from
// its table of TCP sockets (/proc/net/tcp, which the kernel makes by
// walking every bucket of its hash table: slower, and slower with more
// sockets). The answer carries the uid that made the socket. A connection that
// cannot be found there, or a table that cannot be read, is refused too:
// the check fails closed. Elsewhere there is no such table; Checked says
// so, and the secret is the only guard.
package loopback
