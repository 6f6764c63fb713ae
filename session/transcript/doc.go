// Package transcript is the storage of a session: the model its files hold
// (Message, Block, Tool, and the API form of a jsonl transcript), the two
// file formats and their encoders, the layout that makes a save rewrite only
// the lines that changed, the arena a resume decodes into, and the files of
// the sessions directory (Dir: names, claiming, finding, loading; File: one
// session's transcript, its saves, its journal and its stamps).
//
// It knows nothing of events, hooks or the rules that change a
// conversation: package session keeps the conversation and hands a File its
// messages to save. It exists apart so that the file format and the
// guarantees of docs/security.md (an acknowledged message is on disk before
// the answer; a failed or interrupted write never leaves a torn file) are
// kept in one place, under one lock of their own.
//
// # Lock discipline
//
// A File has one mutex, File.mu, which guards its open descriptors, its
// layout (where every line is), its encoder's memory of what it wrote, its
// stamps and whether its next save must rewrite it whole. Every exported
// method of File takes it for its whole duration, write syscalls included,
// so that two saves never interleave and a reader of the File's state never
// sees a write half done. It is a leaf lock: nothing called with it held
// calls out of this package or takes another lock (but loadGC's, below).
//
// Callers take their own lock first: package session holds the
// conversation's lock (Session.mu) while it calls Save, because Save reads
// the message list that lock guards, and because a failed save is taken
// back under the same hold (no other change may slip in between the write
// and its undo). The order is therefore always Store.mu, then Session.mu,
// then File.mu, never the reverse. What takes File.mu alone is what needs
// the file and not the messages: releasing the descriptors of a session
// already marked closed, the count of hook processes reading the file
// (AddReader), and the path, which never changes and needs no lock.
//
// loadGC's mutex (format.go) guards only the garbage collector's target
// while large files load; it is taken and released inside a load and never
// held while taking another lock.
package transcript
