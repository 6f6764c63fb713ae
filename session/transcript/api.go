package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// APIMessage is one message as the model's API (Anthropic Messages) takes it:
// the conversation as the model must see it, and also one line of a "jsonl"
// transcript, so that hook scripts written for Claude Code transcripts (the jq
// recipes of docs/hooks.md) read ours unchanged.
type APIMessage struct {
	Role string
	// Text is the content of a message that is a single text; Blocks is nil then.
	Text string
	// Blocks is the content of every other message.
	Blocks []APIBlock
}

// APIBlock is one content block of an APIMessage: "text", "tool_use" or
// "tool_result". Only the fields of its type are written.
type APIBlock struct {
	Type      string
	Text      string          // text
	ID        string          // tool_use
	Name      string          // tool_use
	Input     json.RawMessage // tool_use; {} when the tool had no input
	ToolUseID string          // tool_result
	Content   string          // tool_result
	IsError   bool            // tool_result
}

// Prefixes that tell the model where a text came from. Loading a jsonl
// transcript reads them back into hook blocks, and into warn blocks the
// "[Warning] " lines that transcripts of earlier releases hold.
const (
	hookPrefix = "[Hook:"
	warnPrefix = "[Warning] "
)

type apiTextJSON struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// MarshalJSON writes exactly the fields the API defines for the block's type.
func (b APIBlock) MarshalJSON() ([]byte, error) { return appendAPIBlock(nil, &b) }

// UnmarshalJSON reads a block, accepting a tool_result whose content is a
// list of text blocks as the API also allows.
func (b *APIBlock) UnmarshalJSON(data []byte) error {
	var raw apiBlockJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = APIBlock{Type: raw.Type, Text: raw.Text, ID: raw.ID, Name: raw.Name, Input: raw.Input,
		ToolUseID: raw.ToolUseID, IsError: raw.IsError}
	if len(raw.Content) > 0 && raw.Content[0] == '"' {
		return json.Unmarshal(raw.Content, &b.Content)
	}
	if len(raw.Content) > 0 && raw.Content[0] == '[' {
		var parts []apiTextJSON
		if err := json.Unmarshal(raw.Content, &parts); err != nil {
			return err
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		b.Content = strings.Join(texts, "\n")
	}
	return nil
}

// MarshalJSON writes {role, content} with content a string for a single text
// and a list of blocks otherwise, as the model API and the jq recipes of docs/hooks.md expect.
func (m APIMessage) MarshalJSON() ([]byte, error) { return appendAPIMessage(nil, &m) }

// UnmarshalJSON reads either shape of content.
func (m *APIMessage) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = APIMessage{Role: raw.Role}
	c := bytes.TrimSpace(raw.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
		return nil
	case c[0] == '"':
		return json.Unmarshal(c, &m.Text)
	default:
		if err := json.Unmarshal(c, &m.Blocks); err != nil {
			return err
		}
		if m.Blocks == nil {
			m.Blocks = []APIBlock{}
		}
		return nil
	}
}

// apiLine is one APIMessage with where it came from, which lets a change at
// message i be converted again from a nearby line instead of from the start.
type apiLine struct {
	msg APIMessage
	// first is the index of the message whose content starts the line.
	first int
	// clean says the line starts with the first content of message first, so
	// converting from that message reproduces this line and all after it.
	clean bool
}

// ToAPI converts messages to what the model must see (docs/hooks.md, "JSON output":
// convertMessagesForAPI): hook blocks become "[Hook:<Event>] …" text, warn
// and error blocks are left out (they are for the user), a tool block is a
// tool_use in its message and, once it has a result, a tool_result in the
// user message that follows; empty messages are dropped and consecutive
// messages of one role merged, because the API wants roles to alternate.
func ToAPI(msgs []Message) []APIMessage {
	lines := convert(msgs, 0)
	out := make([]APIMessage, len(lines))
	for i := range lines {
		out[i] = lines[i].msg
	}
	return out
}

// convert is ToAPI from message start on, keeping each line's origin.
func convert(msgs []Message, start int) []apiLine {
	var lines []apiLine
	for i := start; i < len(msgs); i++ {
		own, results := apiContent(&msgs[i])
		emitted := false
		for _, part := range [2]struct {
			role   string
			blocks []APIBlock
		}{{msgs[i].Role, own}, {RoleUser, results}} {
			if len(part.blocks) == 0 {
				continue
			}
			if n := len(lines); n > 0 && lines[n-1].msg.Role == part.role {
				lines[n-1].msg.Blocks = append(lines[n-1].msg.Blocks, part.blocks...)
			} else {
				lines = append(lines, apiLine{msg: APIMessage{Role: part.role, Blocks: part.blocks}, first: i, clean: !emitted})
			}
			emitted = true
		}
	}
	for i := range lines {
		m := &lines[i].msg
		if len(m.Blocks) == 1 && m.Blocks[0].Type == "text" {
			m.Text, m.Blocks = m.Blocks[0].Text, nil
		}
	}
	return lines
}

// apiContent is what one message contributes: its own content, and the
// results of its tools, which belong to a following user message.
func apiContent(m *Message) (own, results []APIBlock) {
	for i := range m.Blocks {
		o, r, hasOwn, hasRes := blockAPI(&m.Blocks[i])
		if hasOwn {
			own = append(own, o)
		}
		if hasRes {
			results = append(results, r)
		}
	}
	return own, results
}

// blockAPI is what one block contributes to its message's API content (own)
// and to the user message after it (res, a tool's result); the has flags
// say whether it contributes each.
func blockAPI(b *Block) (own, res APIBlock, hasOwn, hasRes bool) {
	switch b.Type {
	case BlockText:
		if strings.TrimSpace(b.Content) != "" {
			return APIBlock{Type: "text", Text: b.Content}, res, true, false
		}
	case BlockHook:
		if strings.TrimSpace(b.Content) != "" {
			return APIBlock{Type: "text", Text: hookPrefix + b.Hook().Event + "] " + b.Content}, res, true, false
		}
	case BlockWarn:
		// For the user only, like error blocks: a hook's systemMessage and
		// wavehooks' own notes never reach the model (Claude Code shows
		// systemMessage to the user alone; docs/parity.md).
	case BlockTool:
		t := b.Tool()
		own = APIBlock{Type: "tool_use", ID: t.ID, Name: t.Name, Input: t.Input}
		if b.HasResult() {
			content := t.Result
			if content == "" {
				content = t.Error
			}
			failed := t.Success != nil && !*t.Success || t.Success == nil && t.Error != ""
			return own, APIBlock{Type: "tool_result", ToolUseID: t.ID, Content: content, IsError: failed}, true, true
		}
		return own, res, true, false
	}
	return own, res, false, false
}

// FromAPI rebuilds messages from API messages (a jsonl transcript): text,
// tool blocks with their results, and hook and warn blocks recognised by
// their prefixes. What the API form does not carry cannot come back: error
// blocks (never sent to the model), a tool block's error text (its result
// and success do come back), hook metadata, and which user message a merged
// text came from (merged texts stay in one message). A text that merely
// starts like "[Warning] " comes back as a warn block; it converts back to
// the same API text.
func FromAPI(api []APIMessage) []Message {
	var msgs []Message
	for i := range api {
		msgs = appendFromAPI(msgs, &api[i], nil)
	}
	return msgs
}

// appendFromAPI is FromAPI for one more API message: a tool result it
// carries is set on the tool block it answers among msgs. With an arena
// (a resume, scanJSONLFile) the message's blocks and tool calls are put in
// it; am's strings are kept as they are, so the caller copies them there
// first (msgArena.apiMessage).
func appendFromAPI(msgs []Message, am *APIMessage, a *msgArena) []Message {
	blocks := am.Blocks
	var one [1]APIBlock
	if blocks == nil && am.Text != "" {
		one[0] = APIBlock{Type: "text", Text: am.Text}
		blocks = one[:]
	}
	var out []Block
	if a != nil {
		out = a.scratch[:0]
	}
	for i := range blocks {
		ab := &blocks[i]
		switch ab.Type {
		case "text":
			out = append(out, blockFromText(ab.Text))
		case "tool_use":
			out = append(out, a.toolBlock(Tool{ID: ab.ID, Name: ab.Name, Input: ab.Input}))
		case "tool_result":
			if !setToolResult(msgs, out, ab, a) {
				out = append(out, Block{Type: BlockText, Content: ab.Content})
			}
		}
	}
	if a != nil {
		a.scratch = out
		if len(out) > 0 {
			out = a.keepBlocks(out)
		}
	}
	if len(out) > 0 {
		msgs = append(msgs, Message{Role: am.Role, Blocks: out})
	}
	return msgs
}

func blockFromText(t string) Block {
	if rest, ok := strings.CutPrefix(t, warnPrefix); ok {
		return Block{Type: BlockWarn, Content: rest}
	}
	if rest, ok := strings.CutPrefix(t, hookPrefix); ok {
		if ev, content, ok := strings.Cut(rest, "] "); ok && !strings.ContainsAny(ev, " ]\n") {
			return Block{Type: BlockHook, Content: content}.WithHook(Hook{Event: ev})
		}
	}
	return Block{Type: BlockText, Content: t}
}

// setToolResult puts a tool_result on the tool block it answers, its tool
// call in a (when not nil).
func setToolResult(msgs []Message, cur []Block, ab *APIBlock, a *msgArena) bool {
	set := func(b *Block) bool {
		if b.Type != BlockTool || b.Tool().ID != ab.ToolUseID {
			return false
		}
		t := b.Tool()
		t.Result, t.Success = ab.Content, boolPtr(!ab.IsError)
		a.setTool(b, t)
		return true
	}
	for i := len(cur) - 1; i >= 0; i-- {
		if set(&cur[i]) {
			return true
		}
	}
	for mi := len(msgs) - 1; mi >= 0; mi-- {
		for bi := len(msgs[mi].Blocks) - 1; bi >= 0; bi-- {
			if set(&msgs[mi].Blocks[bi]) {
				return true
			}
		}
	}
	return false
}

// encodeJSON marshals v on one line without HTML escaping, so that a person
// or a jq script reading the file sees "<" rather than "\u003c".
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
