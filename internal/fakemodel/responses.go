package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// ServeResponses answers one OpenAI Responses API request (codex's wire
// API) as a stream of server-sent events. Answer N of a conversation is
// turns[N], N being how many answers (assistant messages and function
// calls) its input already holds; past the script it says "Done.". A turn
// is one block: its tool call (ToolName, ToolInput) or its text.
func ServeResponses(w http.ResponseWriter, body []byte, turns []Block) {
	var req struct {
		Input []struct {
			Type string `json:"type"`
			Role string `json:"role"`
		} `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	n := 0
	for _, it := range req.Input {
		if it.Type == "function_call" || (it.Type == "message" && it.Role == "assistant") {
			n++
		}
	}
	b := Say("Done.")
	if n < len(turns) {
		b = turns[n]
	}
	id := fmt.Sprintf("resp_%d", time.Now().UnixNano())
	var item map[string]any
	if b.ToolName != "" {
		args, _ := json.Marshal(b.ToolInput)
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": b.ToolName, "arguments": string(args)}
	} else {
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": b.Text, "annotations": []any{}}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(event string, data map[string]any) {
		data["type"] = event
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, raw)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("response.created", map[string]any{"response": map[string]any{"id": id}})
	send("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	send("response.completed", map[string]any{"response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": 10, "input_tokens_details": nil, "output_tokens": 5, "output_tokens_details": nil, "total_tokens": 15}}})
}
