// Package proc runs one hook process and gets all of it back: the command
// line for its shell (shell.go, winshell.go), its stdin and output on
// sealed in-memory files (memfile_*.go), its process tree and how every
// process of a run is ended on timeout (proctree_*.go, Job Objects on
// Windows in executor_windows.go), the wait that never blocks on a
// grandchild (procwait_*.go), and the reaping of orphans (reaper_*.go).
//
// It knows a hook only as settings.Hook and an event's variables; what the
// hook answers is read by the engine (package hooks). A pinned trusted
// script (PinnedRun) is built by package trust and run here.
package proc
