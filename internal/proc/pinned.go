package proc

import "os"

// PinnedRun is how a hook runs the bytes that were checked: its program and
// arguments, and the sealed file that holds the script, which the child
// gets as file descriptor 3.
type PinnedRun struct {
	Argv   []string
	Script *os.File
}

// close releases the parent's copy of the sealed file (the child keeps its own).
func (p *PinnedRun) close() {
	if p != nil && p.Script != nil {
		_ = p.Script.Close()
	}
}
