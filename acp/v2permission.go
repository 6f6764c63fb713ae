package acp

import (
	"encoding/json"
	"fmt"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// The v2 permission request. v2 gives session/request_permission a title
// of its own (the prompt's text, which does not retitle any tool call) and
// an optional, extensible subject in place of v1's toolCall (schema/v2:
// RequestPermissionRequest, RequestPermissionSubject): "tool_call" carries
// the call's state, the same ToolCallUpdate as v1's toolCall; "command" a
// command the agent runs itself, with its cwd and, optionally, the tool
// call it belongs to. The proxy judges a v2 request as v1's, on the tool
// call it names (permissionParams), and puts a hook's ask in the request's
// own title (askTitleLine), where v2 says the question goes.

// permissionParams reads an agent's permission request, in the agent's
// version, as the v1 request the proxy judges: on v2 its subject becomes
// the tool call (v2ToolCall).
func (p *Proxy) permissionParams(m *message) (acpmsg.RequestPermissionRequest, error) {
	var params acpmsg.RequestPermissionRequest
	if !p.agentV2() {
		err := decode(m.Params, &params)
		return params, err
	}
	var v2 acpmsg.RequestPermissionRequestV2
	if err := decode(m.Params, &v2); err != nil {
		return params, err
	}
	params.Meta, params.Options, params.SessionID = v2.Meta, v2.Options, v2.SessionID
	params.ToolCall = p.v2ToolCall(&v2)
	return params, nil
}

// v2ToolCall is the tool call a v2 permission request is about, as hooks
// judge it: a "tool_call" subject's call (titled with the request's title
// when it has none); a "command" subject as a call of kind execute whose
// input is the command and its cwd (the tool call it names, or one of the
// proxy's own ids); a request without a subject, or with one of a type the
// proxy does not know, as a call named by the request's title, so that its
// hooks still decide and a deny is still a deny.
func (p *Proxy) v2ToolCall(r *acpmsg.RequestPermissionRequestV2) acpmsg.ToolCallUpdate {
	title := r.Title
	s := r.Subject
	if s != nil && s.Type == acpmsg.SubjectToolCall && s.ToolCall != nil {
		tc := *s.ToolCall
		if tc.Title == nil {
			tc.Title = &title
		}
		return tc
	}
	tc := acpmsg.ToolCallUpdate{ToolCallID: fmt.Sprintf("%spermission-%d", ownIDPrefix, p.versions.seq.Add(1)), Title: &title}
	if s != nil && s.Type == acpmsg.SubjectCommand {
		kind := "execute"
		tc.Kind = &kind
		tc.RawInput = mustRaw(acpmsg.BashInput{Command: s.Command, Cwd: s.Cwd})
		if s.ToolCallID != nil && *s.ToolCallID != "" {
			tc.ToolCallID = *s.ToolCallID
		}
	}
	return tc
}

// askTitleLine is a permission request with a hook's reason for asking
// added to its title: on v2 the request's own title, on v1 its tool call's
// (withToolTitle); every other byte as the agent sent it.
func (p *Proxy) askTitleLine(line []byte, reason string) []byte {
	retitle := func(old string) string { return askTitle(old, reason) }
	if !p.agentV2() {
		line, _ = withToolTitle(line, retitle)
		return line
	}
	pStart, pEnd, ok := memberValue(line, "params")
	if !ok {
		return line
	}
	s, e, ok := memberValue(line[pStart:pEnd], "title")
	if !ok {
		return line
	}
	var old string
	_ = json.Unmarshal(line[pStart+s:pStart+e], &old)
	return spliced(line, pStart+s, pStart+e, mustRaw(retitle(old)))
}

// newToolCallKind is the kind of session update that shows the editor a
// tool call it has not seen: v1's tool_call; on v2, which has none, the
// first tool_call_update of an id creates the call.
func (p *Proxy) newToolCallKind() string {
	if p.editorV2() {
		return acpmsg.UpdateToolCallUpdate
	}
	return acpmsg.UpdateToolCall
}

// forEditor is a request of the proxy's own (p.call) in the editor's
// version: on v2 a permission request's tool call becomes its subject and
// the call's title the request's title.
func (p *Proxy) forEditor(method string, params any) any {
	r, ok := params.(acpmsg.RequestPermissionRequest)
	if !ok || method != methodRequestPermission || !p.editorV2() {
		return params
	}
	title := ""
	if r.ToolCall.Title != nil {
		title = *r.ToolCall.Title
	}
	tc := r.ToolCall
	return acpmsg.RequestPermissionRequestV2{Meta: r.Meta, Options: r.Options, SessionID: r.SessionID, Title: title,
		Subject: &acpmsg.PermissionSubject{Type: acpmsg.SubjectToolCall, ToolCall: &tc}}
}

// toolIsNew reports whether a tool call update shows a call for the first
// time: v1's tool_call; on v2 the first tool_call_update of an id the
// editor has not been shown.
func (p *Proxy) toolIsNew(st *sessState, kind, id string) bool {
	if kind == acpmsg.UpdateToolCall {
		return true
	}
	if !p.agentV2() || kind != acpmsg.UpdateToolCallUpdate {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.tools[id]
	return t == nil && !st.finished[id] || t != nil && !t.announced
}
