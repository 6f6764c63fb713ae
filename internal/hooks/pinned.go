package hooks

import "os"

// pinnedRun is how a hook runs the bytes that were checked: its program and
// arguments, and the sealed file that holds the script, which the child
// gets as file descriptor 3.
type pinnedRun struct {
	argv   []string
	script *os.File
}

// close releases the parent's copy of the sealed file (the child keeps its own).
func (p *pinnedRun) close() {
	if p != nil && p.script != nil {
		_ = p.script.Close()
	}
}
