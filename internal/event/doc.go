// Package event is the contract between wavehooks and a hook process, as far
// as it is fixed before any hook runs: the lifecycle events and what each
// one's stdin carries (Spec, Fields), the matcher values and answer keys the
// docs list, and Input, the JSON a hook reads on stdin, with how it is read
// from a client (ParseInput) and written for a hook (MarshalStdin).
//
// It is the lowest of the hook packages: settings, trust, the process
// runner and the engine all speak in its Event and Input, and it imports
// none of them.
package event
