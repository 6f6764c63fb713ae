package hooks

// ReadGate is told when hook processes that may read an event's transcript
// start and end. The session store writes a transcript in place only while
// no hook of its session runs, and otherwise through a copy renamed over it,
// so that a hook never reads half a write (docs/performance.md, "Saves while a hook runs").
// The store hands its gate to Engine.FireGated with each event.
type ReadGate interface {
	// Enter is called before hook processes start. It may block while a
	// write to the transcript is in progress.
	Enter()
	// Leave is called once they have all ended, as often as Enter was.
	Leave()
}

// noGate is the gate of an event no session reads (Fire, FireHook).
type noGate struct{}

func (noGate) Enter() {}
func (noGate) Leave() {}
