package transcript

// renamesOverOpenFiles is false on Windows: there a file cannot be renamed
// over while any process holds it open without FILE_SHARE_DELETE — the
// server's own handle (Go's os.OpenFile never shares delete) and a hook
// reading the transcript (programs rarely do) — and even with that sharing
// the classic rename answers "access denied". A save that would rename a
// copy over the session file (replaceByCopy, rewrite) therefore writes in
// place, journalled, as every save with no hook running does everywhere
// (issue 29: TestIncrementalSavesMatchAFullWrite and
// TestFailedSaveTakesTheChangeBack failed under Wine with a sharing
// violation). What that leaves open: a hook reading the file during such a
// write can read part of it (README, Limitations).
const renamesOverOpenFiles = false
