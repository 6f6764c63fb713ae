package hooks

import "context"

// ReadGate is told when hook processes that may read an event's transcript
// start and end. The session store writes a transcript in place only while
// no hook of its session runs, and otherwise through a copy renamed over it,
// so that a hook never reads half a write (docs/performance.md, "Saves while a hook runs").
type ReadGate interface {
	// Enter is called before hook processes start. It may block while a
	// write to the transcript is in progress.
	Enter()
	// Leave is called once they have all ended, as often as Enter was.
	Leave()
}

type readGateKey struct{}

// WithReadGate returns a context under which Fire tells g about the hook
// processes of the event: synchronous hooks as one batch, each async hook
// on its own, since it outlives the event.
func WithReadGate(ctx context.Context, g ReadGate) context.Context {
	return context.WithValue(ctx, readGateKey{}, g)
}

func readGateOf(ctx context.Context) ReadGate {
	if g, ok := ctx.Value(readGateKey{}).(ReadGate); ok {
		return g
	}
	return noGate{}
}

type noGate struct{}

func (noGate) Enter() {}
func (noGate) Leave() {}
