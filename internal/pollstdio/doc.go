// Package pollstdio makes a process's piped stdin and stdout readable and
// writable through the Go runtime's poller, for the processes that speak a
// protocol over them: `wavehooks serve`, `wavehooks acp`, and the line
// relay the ACP proxy is measured against (which must read as the proxy
// does, or its floor would be slower than the proxy's own reading).
//
// A blocking read on stdin keeps a thread in a system call between
// messages, and the runtime's monitor then polls every 20 µs and hands that
// thread's processor over whenever a message arrives (docs/performance.md);
// through the poller, a message wakes the goroutine that reads it and
// nothing else, and closing the duplicate ends a pending read.
package pollstdio
