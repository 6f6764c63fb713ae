//go:build linux

package conformance

import (
	"encoding/json"
	"strings"
)

// Where a text reaches the model. The form differs between agents (Claude
// Code wraps context in system messages and <system-reminder> tags,
// wavehooks in "[Hook:<Event>] …" user text), so the suite compares the
// channel, not the wrapping.
const (
	ChannelToolError    = "tool error"     // a tool_result with is_error
	ChannelToolResult   = "tool result"    // a tool_result without is_error
	ChannelConversation = "conversation"   // user or system text in the messages
	ChannelAssistant    = "assistant text" // text put into the model's own (assistant) turn
	ChannelSystemPrompt = "system prompt"  // the request's system field
	ChannelAbsent       = "absent"         // the model never received it
)

// ModelText is one text the model received, with its channel.
type ModelText struct {
	Channel string
	Text    string
}

// Observation is what one side showed for a scenario.
type Observation struct {
	Calls      map[string][]HookCall // each hook's runs, by hook name
	Markers    []string              // ran-* files: the tools that ran, named by their input
	ModelCalls int                   // how many times the agent called the model
	Model      []ModelText           // everything the model received, in order
	// Dirs are the side's own paths (project, home), replaced by a
	// placeholder before values are compared.
	Dirs map[string]string
}

// ChannelOf is where text first reached the model.
func (o *Observation) ChannelOf(text string) string {
	for _, m := range o.Model {
		if strings.Contains(m.Text, text) {
			return m.Channel
		}
	}
	return ChannelAbsent
}

// requestTexts lists what one Messages API request gives the model: the
// system prompt, every user and system message, and the text blocks of
// assistant messages (the script's own words carry no TOK_ texts, so a
// token found there was put into the model's turn by the agent).
func requestTexts(body []byte) []ModelText {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []ModelText
	for _, t := range contentTexts(req.System) {
		out = append(out, ModelText{ChannelSystemPrompt, t})
	}
	for _, m := range req.Messages {
		text := ChannelConversation
		if m.Role == "assistant" {
			text = ChannelAssistant
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			out = append(out, ModelText{text, s})
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				out = append(out, ModelText{text, b.Text})
			case "tool_result":
				ch := ChannelToolResult
				if b.IsError {
					ch = ChannelToolError
				}
				for _, t := range contentTexts(b.Content) {
					out = append(out, ModelText{ch, t})
				}
			}
		}
	}
	return out
}

// contentTexts reads content that is a string or a list of text blocks.
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// IsConversationRequest tells the agent's model calls from its side
// requests (titles, summaries): only the former carry tools.
func IsConversationRequest(r APIRequest) bool {
	if r.Method != "POST" || !strings.HasPrefix(r.Path, "/v1/messages") || strings.HasPrefix(r.Path, "/v1/messages/") {
		return false
	}
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	return json.Unmarshal(r.Body, &req) == nil && len(req.Tools) > 0
}
