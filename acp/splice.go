package acp

import (
	"bytes"
	"encoding/json"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// memberValue finds the value of key among the members of the JSON object
// obj, without decoding the rest: it returns the value's start and end in
// obj, or ok false when obj is not an object or has no such member. When a
// key repeats, the last one counts, as decoders read it.
func memberValue(obj []byte, key string) (start, end int, ok bool) {
	i := rawjson.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return 0, 0, false
	}
	i++
	for {
		i = rawjson.SkipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return start, end, ok
		}
		if obj[i] != '"' {
			return 0, 0, false
		}
		kEnd := rawjson.StringEnd(obj, i)
		if kEnd < 0 {
			return 0, 0, false
		}
		k := obj[i+1 : kEnd]
		match := string(k) == key
		if !match && bytes.IndexByte(k, '\\') >= 0 {
			var s string
			match = json.Unmarshal(obj[i:kEnd+1], &s) == nil && s == key
		}
		i = rawjson.SkipSpace(obj, kEnd+1)
		if i >= len(obj) || obj[i] != ':' {
			return 0, 0, false
		}
		vStart := rawjson.SkipSpace(obj, i+1)
		vEnd := rawjson.ValueEnd(obj, vStart)
		if vEnd < 0 {
			return 0, 0, false
		}
		if match {
			start, end, ok = vStart, vEnd, true
		}
		i = rawjson.SkipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
}

// spliced is line with the bytes from start to end replaced by value.
func spliced(line []byte, start, end int, value []byte) []byte {
	out := make([]byte, 0, len(line)-(end-start)+len(value))
	return append(append(append(out, line[:start]...), value...), line[end:]...)
}

// withToolTitle is a session/request_permission line with its
// toolCall.title set by retitle (given the title it had, "" for none);
// every other byte of the message stays as the agent sent it. ok is false
// when the line has no params.toolCall object.
func withToolTitle(line []byte, retitle func(old string) string) ([]byte, bool) {
	pStart, pEnd, ok := memberValue(line, "params")
	if !ok {
		return line, false
	}
	params := line[pStart:pEnd]
	tStart, tEnd, ok := memberValue(params, "toolCall")
	if !ok {
		return line, false
	}
	toolCall := params[tStart:tEnd]
	if toolCall[0] != '{' {
		return line, false
	}
	if s, e, ok := memberValue(toolCall, "title"); ok {
		var old string
		_ = json.Unmarshal(toolCall[s:e], &old)
		return spliced(line, pStart+tStart+s, pStart+tStart+e, mustRaw(retitle(old))), true
	}
	// No title: one goes first in the object.
	open := pStart + tStart + rawjson.SkipSpace(toolCall, 0) + 1
	member := append([]byte(`"title":`), mustRaw(retitle(""))...)
	if rest := rawjson.SkipSpace(line, open); rest < len(line) && line[rest] != '}' {
		member = append(member, ',')
	}
	return spliced(line, open, open, member), true
}
