package hooks

import (
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// This file holds the API that only the tests use: the engine is built by
// hosts through NewEngine and Install, and nothing outside the tests swaps a
// configuration in without a trust decision made for it.

// SetConfig swaps the configuration, with the workspace not trusted.
func (e *Engine) SetConfig(cfg *settings.Config) { e.Install(trust.Resolve(cfg, false)) }

// SetWorkspaceTrusted makes the configuration in use trusted or not, as a
// test decides it for the configuration it installed itself; the workspace
// files its hooks run are hashed again. Hosts Install a Loaded from
// TrustStore.Decide instead, so that a decision never applies to a
// configuration it was not made for.
func (e *Engine) SetWorkspaceTrusted(trusted bool) {
	e.Install(trust.Resolve(e.Loaded().Full, trusted))
}

// Ran reports whether any hook process ran for the event.
func (r *Result) Ran() bool {
	for i := range r.Runs {
		if r.Runs[i].Ran {
			return true
		}
	}
	return false
}

// ParseEnvFile is parseEnvFile, for envfile_test.go.
var ParseEnvFile = parseEnvFile
