package acp

import (
	"bytes"
	"encoding/json"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// textChunkLine is a session/update that streams the agent's text, read in
// one pass: hundreds of these make up a turn (a model streams a few words
// each), and reading the envelope, then the update's head, then its content
// went over each line three times (BenchmarkForwarding, docs/performance.md).
type textChunkLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string  `json:"sessionUpdate"`
			MessageID     *string `json:"messageId"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}

// chunkMark is in every line textChunk takes; a line without it is not read twice.
var chunkMark = []byte(acpmsg.UpdateAgentMessageChunk)

// textChunk passes on and records a line of the agent's that streams text,
// as sessionUpdate does, and reports whether the line was one. Anything
// else — another update, a request, a line this reading does not fit
// (content that is not an object, an id) — is left to the general reading,
// so every line is handled as it would be there. Nothing of line is kept
// past the call (the editor's output and the transcript copy what they
// take): readAgent passes it in its reader's buffer, uncopied.
func (p *Proxy) textChunk(line []byte) bool {
	if !bytes.Contains(line, chunkMark) {
		return false
	}
	c := &p.agentChunk
	*c = textChunkLine{}
	if parse(line, c, fastjson.ZeroCopy) != nil || c.Method != methodSessionUpdate || !isNull(c.ID) ||
		c.Params.Update.SessionUpdate != acpmsg.UpdateAgentMessageChunk {
		return false
	}
	m := &p.agentChunkMsg // one for the proxy, not one allocation per chunk
	*m = message{line: line, Method: methodSessionUpdate}
	p.safely(m, p.recordTextChunk, false)
	*m = message{} // the line is the reader's buffer: not held on to
	return true
}

// recordTextChunk is sessionUpdate for the line p.agentChunk holds.
func (p *Proxy) recordTextChunk(m *message) {
	c := &p.agentChunk
	st := p.sessionState(c.Params.SessionID)
	p.passEditor(m)
	if st == nil || c.Params.Update.Content.Type != "text" {
		return
	}
	p.recordText(st, c.Params.Update.MessageID, c.Params.Update.Content.Text)
}

// recordText gathers a streamed chunk of the agent's text for the
// transcript, per messageId; the message before it is recorded when the id
// changes.
func (p *Proxy) recordText(st *sessState, messageID *string, text string) {
	msgID := ""
	if messageID != nil {
		msgID = *messageID
	}
	p.saveText(st, st.addText(msgID, text))
}
