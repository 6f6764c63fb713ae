//go:build linux

package conformance

import "github.com/wavehooks/wavehooks/internal/fakemodel"

// The scenarios' model is internal/fakemodel's Messages API, which
// `wavehooks doctor` runs Claude Code against too; these names keep the
// suite's spelling of it.
type (
	// Block is one content block of a scripted model answer.
	Block = fakemodel.Block
	// APIRequest is one request the CLI made to the fake API.
	APIRequest = fakemodel.APIRequest
	// FakeAPI is a scripted Anthropic Messages API on loopback.
	FakeAPI = fakemodel.FakeAPI
)

var (
	// Say is a text block.
	Say = fakemodel.Say
	// Fail is an answer that is an API error instead of a message.
	Fail = fakemodel.Fail
	// Call is a tool call with the given id.
	Call = fakemodel.Call
	// StartFakeAPI serves a script on 127.0.0.1 (and a Unix socket).
	StartFakeAPI = fakemodel.StartFakeAPI
)
