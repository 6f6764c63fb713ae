package acp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// ACP v1 and the v2 draft from one binary (issue #37 item 1).
//
// Each side's version is read at initialize: the editor's request names the
// latest version it speaks, the agent answers with that version when it
// speaks it, else with its own latest (ACP's version negotiation, the same
// in both versions; schema/v2's migration guide: "An Agent that only
// supports v1 will answer with protocolVersion: 1, and the Client decides
// whether to continue with v1 or disconnect"). The proxy forwards the
// request as it came and decides on the answer (negotiate):
//
//	editor offers | agent answers | the connection
//	1             | 1             | v1 both sides, as before
//	2             | 2             | v2 both sides: v2's hook points (v2prompt.go, v2permission.go)
//	2             | 1             | v1 both sides: the answer goes on unchanged and the editor, as ACP
//	              |               | prescribes, continues with v1 or disconnects
//	1             | 2             | translated: the editor sees a v1 agent (v2translate.go)
//	anything else |               | passed on; the proxy acts as for v1
//
// A v1 editor in front of a v2-only agent is the one pair ACP's negotiation
// does not settle, and every editor that ships speaks only v1, so the proxy
// translates it: its hook points see v1 on both sides, and v2translate.go
// reshapes each message where the versions differ.

// versions is what initialize settled: the protocol version each side
// speaks on this connection (0 until the agent answered). Atomic: the
// agent's reader reads it for every session/update.
type versions struct {
	editor, agent atomic.Int32
	// offered is the version the editor's initialize named.
	offered atomic.Int32
	// seq numbers the ids the proxy makes on v2 (messageID, a tool call
	// for a permission request that names none).
	seq atomic.Int64
	// translate: a v1 editor in front of a v2-only agent, whose messages
	// the proxy translates (v2translate.go); editor and agent are then 1,
	// the version the proxy's hook points see.
	translate atomic.Bool
}

// agentV2 reports whether the agent speaks ACP v2 on this connection.
func (p *Proxy) agentV2() bool { return p.versions.agent.Load() == acpmsg.ProtocolV2 }

// editorV2 reports whether the editor speaks ACP v2 on this connection.
func (p *Proxy) editorV2() bool { return p.versions.editor.Load() == acpmsg.ProtocolV2 }

// protocolVersion reads a protocolVersion member: 0 when it is missing or
// not a small non-negative integer (schema: ProtocolVersion, uint16).
func protocolVersion(raw json.RawMessage) int32 {
	var head acpmsg.VersionHead
	if decode(raw, &head) != nil {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(head.ProtocolVersion)), 10, 16)
	if err != nil {
		return 0
	}
	return int32(n)
}

// initializeRequest notes the version the editor offers and forwards its
// initialize unchanged.
func (p *Proxy) initializeRequest(m *message) {
	p.versions.offered.Store(protocolVersion(m.Params))
	p.forwardCall(m, &editorCall{id: m.ID, method: m.Method}, m.line)
}

// pairing is what the proxy does with one pair of versions (negotiate).
type pairing int

const (
	pairPass      pairing = iota // the versions agree: the answer goes on
	pairTranslate                // a v1 editor and a v2-only agent (v2translate.go)
)

// negotiate decides a connection's versions from the editor's offer and the
// agent's answer: what each side speaks, and whether the pair works.
func negotiate(offered, answered int32) (editor, agent int32, how pairing) {
	switch {
	case offered == acpmsg.ProtocolV1 && answered == acpmsg.ProtocolV2:
		// The proxy translates: its hook points see v1 on both sides.
		return acpmsg.ProtocolV1, acpmsg.ProtocolV1, pairTranslate
	case answered == acpmsg.ProtocolV1 || answered == acpmsg.ProtocolV2:
		// The same version both sides, or a v2 editor told to speak v1:
		// the agent's answer is the connection's version.
		return answered, answered, pairPass
	}
	return 0, 0, pairPass // a version the proxy does not know: v1's hook points
}

// initializeAnsweredAny settles the versions from the agent's initialize
// answer, then acts on it as initializeAnswered does, or refuses the pair.
func (p *Proxy) initializeAnsweredAny(call *editorCall, m *message) {
	if m.Error != nil {
		p.initializeAnswered(call, m)
		return
	}
	offered, answered := p.versions.offered.Load(), protocolVersion(m.Result)
	editor, agent, how := negotiate(offered, answered)
	p.versions.editor.Store(editor)
	p.versions.agent.Store(agent)
	if how == pairTranslate {
		p.versions.translate.Store(true)
		p.log.Info("the editor speaks ACP v1 and the agent only the v2 draft: the proxy translates",
			"editor offered", offered, "agent answered", answered, "schema", acpmsg.SchemaV2Release)
		if n, err := parseMessage(rawResultLine(m.ID, initializeToV1(m.Result))); err == nil {
			*m = *n
		}
	}
	if answered != acpmsg.ProtocolV1 {
		p.log.Info("ACP version negotiated", "editor offered", offered, "agent answered", answered)
	}
	p.initializeAnswered(call, m)
}
