package acp

import (
	"encoding/json"
	"fmt"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// maxNesting bounds how deeply arrays and objects may nest in one message,
// the envelope included, as `wavehooks serve` bounds what an editor sends
// (docs/protocol-limits.md, "Nesting"). The decoders recurse once per level:
// a 4 MB line nested 2,000,000 deep overflowed the proxy's stack, which no
// recover catches, and ended it with the agent orphaned and no SessionEnd.
// 128 is also what a hook's jq is sure to read: a tool input sits at least
// two levels inside the message and one level inside the hook's stdin, so a
// message within the limit never reaches a hook as input it cannot parse.
const maxNesting = rawjson.MaxDepth

// tooDeep reports whether a line nests deeper than maxNesting: one pass
// over its bytes, with no recursion, before any decoder sees it.
func tooDeep(line []byte) bool { return rawjson.TooDeep(line, maxNesting) }

// deepText is what the proxy says of a message it refused for its depth.
var deepText = fmt.Sprintf("arrays and objects nest deeper than %d levels", maxNesting)

// envelope is what can be told of a message too deep to decode: its id, its
// method and its params' sessionId, read from the top-level members without
// recursing into their values.
type envelope struct {
	id        json.RawMessage // nil when absent, or not a string or number
	hasID     bool            // an id member that is not null is present
	method    string
	params    []byte
	sessionID string
}

// probe reads a too-deep line's envelope.
func probe(line []byte) envelope {
	var e envelope
	top := members(line)
	if id, ok := top["id"]; ok && string(id) != "null" {
		e.hasID = true
		if plainID(id) {
			e.id = append(json.RawMessage(nil), id...)
		}
	}
	e.method = plainString(top["method"])
	e.params = top["params"]
	e.sessionID = plainString(members(e.params)["sessionId"])
	return e
}

// plainID: an id the proxy can echo — a JSON string or number no larger
// than any peer sends. An id that is itself deep or odd is answered as null.
func plainID(id []byte) bool {
	if len(id) == 0 || len(id) > 1024 || id[0] == '[' || id[0] == '{' || string(id) == "null" {
		return false
	}
	return json.Valid(id)
}

// plainString is the value of a JSON string member, "" for anything else.
func plainString(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' || len(raw) > 4096 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// members splits a JSON object into its top-level members, each value's
// bytes as they are, without decoding or recursing into them; nil when b is
// not an object it can read. The last of repeated keys wins, as decoding does.
func members(b []byte) map[string][]byte {
	i := rawjson.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	out := map[string][]byte{}
	for i = rawjson.SkipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		if b[i] != '"' {
			return out
		}
		end := rawjson.StringEnd(b, i)
		if end < 0 {
			return out
		}
		key := plainString(b[i : end+1])
		i = rawjson.SkipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return out
		}
		start := rawjson.SkipSpace(b, i+1)
		stop := rawjson.ValueEnd(b, start)
		if stop < 0 {
			return out
		}
		out[key] = b[start:stop]
		i = rawjson.SkipSpace(b, stop)
		if i < len(b) && b[i] == ',' {
			i = rawjson.SkipSpace(b, i+1)
		}
	}
	return out
}

// deepFromEditor refuses a message of the editor's that nests too deep; it
// is not passed to the agent. A request gets InvalidRequest with its id; a
// notification is dropped; an answer to one of the agent's requests (or the
// proxy's own) becomes an error answer, handled like any answer, so that
// the agent is not left waiting and an ask the proxy put is denied.
func (p *Proxy) deepFromEditor(line []byte, up chan<- *message) {
	defer p.recoverRefusal()
	e := probe(line)
	p.log.Warn("the editor sent a message nested too deep to pass on; it was refused",
		"method", e.method, "id", string(e.id), "size", len(line))
	switch {
	case e.method == "" && e.id != nil:
		m, err := parseMessage(errorLine(e.id, rpcerr.InvalidRequest,
			"wavehooks: the editor's answer was refused: "+deepText, nil))
		if err == nil {
			p.queue(up, m)
		}
		return
	case e.method == "" && e.hasID, e.method != "" && !e.hasID:
		return // an answer to nothing the proxy can name, or a notification: nothing to answer
	}
	p.sendEditor(errorLine(e.id, rpcerr.InvalidRequest, "wavehooks: invalid request: "+deepText+"; it was not passed to the agent", nil))
	p.editorOut.flush()
}

// deepFromAgent refuses a message of the agent's that nests too deep; it is
// not passed to the editor, and no hook sees it. A permission request is
// denied (the agent's reject option, as a hook's deny) and any other
// request answered with InvalidRequest: what its hooks cannot read, they
// cannot allow. A notification is dropped, and an answer to an editor's
// request becomes an error answer to it. The editor is told when the
// message names a session it knows.
func (p *Proxy) deepFromAgent(line []byte) {
	defer p.recoverRefusal()
	e := probe(line)
	p.log.Warn("the agent sent a message nested too deep to pass on; it was refused",
		"method", e.method, "id", string(e.id), "session", e.sessionID, "size", len(line))
	p.mu.Lock()
	st := p.sessions[e.sessionID]
	p.mu.Unlock()
	row := methodOf(e.method)
	switch {
	case e.method == "" && e.id != nil:
		if m, err := parseMessage(errorLine(e.id, rpcerr.InternalError, "wavehooks: the agent's answer was refused: "+deepText, nil)); err == nil {
			p.safely(m, p.fromAgent, false)
		}
		return
	case e.method == "":
		return
	case !e.hasID:
		if st != nil {
			p.notice(st, levelWarning, "the agent sent a "+e.method+" whose "+deepText+"; it was dropped")
		}
		return
	case row != nil && row.refuseDeep != nil:
		row.refuseDeep(p, e, st) // a permission request: denied
	default:
		p.sendAgent(errorLine(e.id, rpcerr.InvalidRequest, "wavehooks: invalid request: "+deepText+
			"; it was not passed to the editor, and no hook could judge it", nil))
		if st != nil {
			p.notice(st, levelWarning, "the agent's "+e.method+" was refused: its "+deepText)
		}
	}
	p.flush()
}

// deepPermissionAnswer denies a permission request nested too deep: its
// reject option when its options can be read (they are shallow even when the
// tool call is not), else "cancelled".
func deepPermissionAnswer(params []byte) acpmsg.RequestPermissionResponse {
	raw := members(params)["options"]
	var options []acpmsg.PermissionOption
	if len(raw) > 0 && !rawjson.TooDeep(raw, maxNesting) && json.Unmarshal(raw, &options) == nil {
		if opt := pickOption(options, "reject_once", "reject_always"); opt != nil {
			return acpmsg.Selected(opt.OptionID)
		}
	}
	return acpmsg.Cancelled()
}

// recoverRefusal logs a panic in refusing a message instead of ending the
// proxy: the message is dropped either way, never passed on.
func (p *Proxy) recoverRefusal() {
	if r := recover(); r != nil {
		p.log.Error("internal error refusing a message nested too deep; it was dropped", "panic", r)
	}
}
