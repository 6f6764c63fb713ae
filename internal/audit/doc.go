// Package audit keeps the tamper-evident record of every decision the hooks
// and the user made (issue #38 item 2): a team's security group must be able
// to show afterwards what was allowed, denied or asked, by whom, on which
// input, and that nobody edited the record since.
//
// The log is a hash chain of JSON lines under $WAVE_HOME/audit: each record
// carries its sequence number, the SHA-256 of the previous record's bytes
// (prev), and an HMAC-SHA256 of its own bytes (mac) under a key kept beside
// the log (key, 0600). The chain proves order and completeness to anyone;
// the MAC makes a rewrite of the whole chain detectable to whoever holds the
// key, since a writer without the key cannot make a record that verifies.
//
// Several processes share a wave home (serve, the ACP proxy, `wavehooks
// run`): they keep one chain, taking turns by an exclusive lock on
// audit/lock (flock, LockFileEx) around "read the last whole record, append
// the next". One chain rather than one per writer, so that a whole writer's
// records cannot be removed without a trace and one sequence orders them all.
//
// Records are appended as one write of one line (O_APPEND). A crash mid-append
// leaves a torn last line: Verify reports it as torn, not as tampering, and
// the next append starts a fresh line and chains from the last whole record.
// When the current file passes its bound it is renamed to audit.N.jsonl and
// the next record, in a new audit.jsonl, chains from the last one of it.
//
// Log is the writer (a hooks.RunObserver, fed by hooks.History, plus
// RecordAnswer for the answers to asks the adapters decide); Verify is the
// reader that proves the chain (`wavehooks log --verify`).
package audit
