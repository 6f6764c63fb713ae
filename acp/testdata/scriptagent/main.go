// Command scriptagent is a scripted ACP agent for the proxy's tests: it
// speaks ACP v1 on stdio like a real agent, and each session/prompt plays
// the next turn of a script instead of asking a model. Every line it reads
// is appended to a log, so a test can check what the agent received.
//
//	AGENT_SCRIPT=script.json AGENT_LOG=received.jsonl scriptagent
//
// The script is {"agentName": "…", "turns": [[step, …], …]}; the steps are
// documented on step below.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type script struct {
	AgentName string   `json:"agentName"`
	Turns     [][]step `json:"turns"`
	// Replay is what session/load replays: user and agent texts, alternating.
	Replay []string `json:"replay"`
	// Every is the turn of every prompt after the listed turns.
	Every []step `json:"every"`
	// Load is played during session/load, after the replay and before the
	// answer: the agent's requests while the load is in flight.
	Load []step `json:"load"`
	// OwnOperations: a file or terminal request the client did not offer
	// in initialize is carried out by the agent itself, as real agents do
	// and as every agent must under ACP v2's permission-only model (no
	// fs/* or terminal/* methods). Without it such a request is sent
	// anyway, so a test can see what the proxy does with it.
	OwnOperations bool `json:"ownOperations"`
	// ProtocolVersion is the latest ACP version the agent speaks: 2 makes
	// it speak the v2 draft (schema 2.0.0-alpha.3, acp/internal/acpmsg's
	// schema/v2) to a client that offers 2, and v1 to one that offers 1;
	// with V2Only it answers 2 whatever the client offers, as an agent that
	// dropped v1 does. On v2 it acknowledges session/prompt at once, reports
	// the user message and the running state, and ends the turn with an idle
	// state_update carrying the stop reason; its text chunks carry a
	// messageId; its permission requests have a title and a subject.
	ProtocolVersion int  `json:"protocolVersion"`
	V2Only          bool `json:"v2Only"`
	// V2Modes, on v2, are the values of the session's config option of
	// category "mode" (the first is current), which v2 has in place of v1's
	// session modes; session/set_config_option sets it and reports it.
	V2Modes []string `json:"v2Modes"`
}

// step is one thing the agent does in a turn; exactly one field is set.
type step struct {
	// Say streams a text chunk ($error is replaced by the last error message).
	Say       string `json:"say,omitempty"`
	MessageID string `json:"messageId,omitempty"`
	// Update sends a session/update with this update object.
	Update json.RawMessage `json:"update,omitempty"`
	// Permission asks session/request_permission for this tool call, with
	// Options (Gemini CLI's by default), and goes on with the steps of the
	// chosen option's kind ("allow"/"reject") or "cancelled".
	Permission json.RawMessage `json:"permission,omitempty"`
	// Subject and Title, on v2, are the permission request's subject and
	// title as given (a "command" subject); by default the subject is the
	// tool call Permission and the title its title.
	Subject     json.RawMessage `json:"subject,omitempty"`
	Title       string          `json:"title,omitempty"`
	Options     json.RawMessage `json:"options,omitempty"`
	IfAllowed   []step          `json:"ifAllowed,omitempty"`
	IfRejected  []step          `json:"ifRejected,omitempty"`
	IfCancelled []step          `json:"ifCancelled,omitempty"`
	// Call sends the client this request and goes on with IfOK or IfError.
	// With ownOperations, a file or terminal request the client did not
	// offer is carried out by the agent itself: the file is read or
	// written, the command run, and its output kept for $output in later
	// updates.
	Call       *call            `json:"call,omitempty"`
	IfOK       []step           `json:"ifOK,omitempty"`
	IfError    []step           `json:"ifError,omitempty"`
	Stop       string           `json:"stop,omitempty"`
	Crash      *int             `json:"crash,omitempty"`
	Hang       bool             `json:"hang,omitempty"`
	WaitCancel bool             `json:"waitCancel,omitempty"`
	Chunks     *struct{ N int } `json:"chunks,omitempty"`
	BigSay     int              `json:"bigSay,omitempty"`
	Stdout     string           `json:"stdout,omitempty"`
	// Async plays its steps alongside the rest of the turn.
	Async []step `json:"async,omitempty"`
	// WaitFile waits until the file exists (a hook creates it).
	WaitFile string `json:"waitFile,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
}

type call struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type agent struct {
	sc       script
	out      *bufio.Writer
	outMu    sync.Mutex
	log      *os.File
	mu       sync.Mutex
	turn     int
	sessions int
	nextID   int
	waiting  map[string]chan msg
	cancel   map[string]chan struct{}
	lastErr  string
	// lastOut is the output of the agent's own last file or terminal
	// operation ($output in an update).
	lastOut string
	// offered are the file and terminal methods the client offered.
	offered map[string]bool
	// v2: initialize settled on ACP v2.
	v2 bool
	// messages numbers the v2 messageIds.
	messages int
}

func main() {
	a := &agent{out: bufio.NewWriterSize(os.Stdout, 1<<16), waiting: map[string]chan msg{}, cancel: map[string]chan struct{}{}}
	if path := os.Getenv("AGENT_SCRIPT"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scriptagent:", err)
			os.Exit(2)
		}
		if err := json.Unmarshal(data, &a.sc); err != nil {
			fmt.Fprintln(os.Stderr, "scriptagent: bad script:", err)
			os.Exit(2)
		}
	}
	if path := os.Getenv("AGENT_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scriptagent:", err)
			os.Exit(2)
		}
		a.log = f
	}
	if path := os.Getenv("AGENT_PID_FILE"); path != "" {
		if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "scriptagent:", err)
			os.Exit(2)
		}
	}
	// AGENT_STOP_READING_AFTER=n: after n lines the agent stops reading its
	// stdin and ignores SIGTERM, as a wedged agent does.
	stopAfter, _ := strconv.Atoi(os.Getenv("AGENT_STOP_READING_AFTER"))
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for n := 0; ; n++ {
		if stopAfter > 0 && n == stopAfter {
			signal.Ignore(syscall.SIGTERM)
			for {
				time.Sleep(time.Hour)
			}
		}
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			a.received(line)
		}
		if err != nil {
			return // EOF: the client is gone
		}
	}
}

func (a *agent) received(line []byte) {
	if a.log != nil {
		_, _ = a.log.Write(line)
	}
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		a.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "parse error"}})
		return
	}
	switch {
	case m.Method == "" && m.ID != nil:
		a.mu.Lock()
		ch := a.waiting[string(m.ID)]
		delete(a.waiting, string(m.ID))
		a.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	case m.Method == "session/cancel":
		var p struct{ SessionID string }
		_ = json.Unmarshal(m.Params, &p)
		a.mu.Lock()
		if ch := a.cancel[p.SessionID]; ch != nil {
			close(ch)
			delete(a.cancel, p.SessionID)
		}
		a.mu.Unlock()
	case m.ID != nil:
		a.request(m)
	}
}

func (a *agent) request(m msg) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		var init struct {
			ProtocolVersion    int `json:"protocolVersion"`
			ClientCapabilities struct {
				Fs struct {
					ReadTextFile  bool `json:"readTextFile"`
					WriteTextFile bool `json:"writeTextFile"`
				} `json:"fs"`
				Terminal bool `json:"terminal"`
			} `json:"clientCapabilities"`
		}
		_ = json.Unmarshal(m.Params, &init)
		c := init.ClientCapabilities
		a.mu.Lock()
		a.offered = map[string]bool{"fs/read_text_file": c.Fs.ReadTextFile, "fs/write_text_file": c.Fs.WriteTextFile,
			"terminal/create": c.Terminal}
		a.mu.Unlock()
		name := a.sc.AgentName
		if name == "" {
			name = "scriptagent"
		}
		if a.sc.ProtocolVersion >= 2 && (init.ProtocolVersion >= 2 || a.sc.V2Only) {
			a.mu.Lock()
			a.v2 = true
			// v2's client capabilities have no fs or terminal: whatever a
			// v1 client's initialize says, the agent does its own.
			a.offered = map[string]bool{"fs/read_text_file": false, "fs/write_text_file": false, "terminal/create": false}
			a.mu.Unlock()
			a.reply(m.ID, map[string]any{"protocolVersion": 2, "info": map[string]string{"name": name, "version": "1"},
				"capabilities": map[string]any{"session": map[string]any{}}, "authMethods": []any{}})
			return
		}
		a.reply(m.ID, map[string]any{"protocolVersion": 1, "agentInfo": map[string]string{"name": name, "version": "1"},
			"agentCapabilities": map[string]any{"loadSession": true, "sessionCapabilities": map[string]any{"resume": map[string]any{}, "close": map[string]any{}}},
			"authMethods":       []any{}})
	case "session/new":
		a.mu.Lock()
		a.sessions++
		id := fmt.Sprintf("sess-%d", a.sessions)
		a.mu.Unlock()
		res := map[string]any{"sessionId": id, "_meta": map[string]any{"scriptagent": true}}
		if a.isV2() && a.sc.V2Modes != nil {
			res["configOptions"] = a.modeOptions(a.sc.V2Modes[0])
		}
		a.reply(m.ID, res)
	case "session/set_config_option":
		var set struct {
			ConfigID string `json:"configId"`
			Value    string `json:"value"`
		}
		_ = json.Unmarshal(m.Params, &set)
		if !a.isV2() || set.ConfigID != "mode" {
			a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "unknown config option"}})
			return
		}
		a.reply(m.ID, map[string]any{"configOptions": a.modeOptions(set.Value)})
		a.update(p.SessionID, map[string]any{"sessionUpdate": "config_option_update", "configOptions": a.modeOptions(set.Value)})
	case "session/load":
		if a.isV2() { // v2 has no session/load
			a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
			return
		}
		for i, text := range a.sc.Replay {
			kind := "user_message_chunk"
			if i%2 == 1 {
				kind = "agent_message_chunk"
			}
			a.update(p.SessionID, map[string]any{"sessionUpdate": kind, "content": map[string]string{"type": "text", "text": text}})
		}
		if a.sc.Load != nil {
			go func() { // its calls wait for answers the main loop reads
				a.play(nil, p.SessionID, a.sc.Load, make(chan struct{}))
				a.reply(m.ID, nil)
			}()
			return
		}
		a.reply(m.ID, nil)
	case "session/resume", "session/close":
		var resume struct {
			ReplayFrom *struct{ Type string } `json:"replayFrom"`
		}
		_ = json.Unmarshal(m.Params, &resume)
		if a.isV2() && resume.ReplayFrom != nil {
			// v2: the conversation as whole messages, from the start.
			for i, text := range a.sc.Replay {
				kind := "user_message"
				if i%2 == 1 {
					kind = "agent_message"
				}
				a.update(p.SessionID, map[string]any{"sessionUpdate": kind, "messageId": a.newMessageID(),
					"content": []any{map[string]string{"type": "text", "text": text}}})
			}
		}
		a.reply(m.ID, map[string]any{})
	case "session/list":
		a.reply(m.ID, map[string]any{"sessions": []any{}})
	case "session/prompt":
		a.mu.Lock()
		var steps []step
		if a.turn < len(a.sc.Turns) {
			steps = a.sc.Turns[a.turn]
		} else if a.sc.Every != nil {
			steps = a.sc.Every
		}
		a.turn++
		cancel := make(chan struct{})
		a.cancel[p.SessionID] = cancel
		a.mu.Unlock()
		if steps == nil {
			steps = []step{{Say: "(no more turns in the script)"}, {Stop: "end_turn"}}
		}
		if a.isV2() {
			// v2: the answer acknowledges the prompt; the user message and
			// the running state follow, and an idle state_update ends the turn.
			var prompt struct {
				Prompt json.RawMessage `json:"prompt"`
			}
			_ = json.Unmarshal(m.Params, &prompt)
			a.reply(m.ID, map[string]any{})
			a.update(p.SessionID, map[string]any{"sessionUpdate": "user_message", "messageId": a.newMessageID(), "content": prompt.Prompt})
			a.update(p.SessionID, map[string]any{"sessionUpdate": "state_update", "state": "running"})
		}
		go a.play(m.ID, p.SessionID, steps, cancel)
	default:
		a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
	}
}

// play runs a turn's steps; the turn ends at a stop step.
func (a *agent) play(id json.RawMessage, sess string, steps []step, cancel chan struct{}) bool {
	for _, s := range steps {
		switch {
		case s.Say != "":
			u := map[string]any{"sessionUpdate": "agent_message_chunk",
				"content": map[string]string{"type": "text", "text": strings.ReplaceAll(s.Say, "$error", a.lastErr)}}
			if s.MessageID != "" {
				u["messageId"] = s.MessageID
			} else if a.isV2() {
				u["messageId"] = a.newMessageID()
			}
			a.update(sess, u)
		case s.Update != nil:
			var u map[string]any
			a.mu.Lock()
			out, _ := json.Marshal(a.lastOut)
			a.mu.Unlock()
			_ = json.Unmarshal(bytes.ReplaceAll(s.Update, []byte("$output"), out[1:len(out)-1]), &u)
			a.update(sess, u)
		case s.Permission != nil:
			options := s.Options
			if options == nil {
				options = json.RawMessage(`[{"optionId":"proceed_always","name":"Allow for this session","kind":"allow_always"},` +
					`{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}]`)
			}
			params := map[string]any{"sessionId": sess, "toolCall": s.Permission, "options": options}
			if a.isV2() {
				params = map[string]any{"sessionId": sess, "title": s.Title, "subject": s.Subject, "options": options}
				if s.Subject == nil {
					var tc struct {
						Title string `json:"title"`
					}
					_ = json.Unmarshal(s.Permission, &tc)
					params["title"] = tc.Title
					params["subject"] = map[string]any{"type": "tool_call", "toolCall": s.Permission}
				}
			}
			res := a.call("session/request_permission", params)
			var out struct {
				Outcome struct{ Outcome, OptionID string }
			}
			_ = json.Unmarshal(res.Result, &out)
			var kinds []struct{ OptionID, Kind string }
			_ = json.Unmarshal(options, &kinds)
			kind := "cancelled"
			if out.Outcome.Outcome == "selected" {
				for _, k := range kinds {
					if k.OptionID == out.Outcome.OptionID {
						kind = k.Kind
					}
				}
			}
			next := s.IfCancelled
			switch kind {
			case "allow_once", "allow_always":
				next = s.IfAllowed
			case "reject_once", "reject_always":
				next = s.IfRejected
			}
			if a.play(id, sess, next, cancel) {
				return true
			}
		case s.Call != nil:
			var params map[string]any
			_ = json.Unmarshal(s.Call.Params, &params)
			params["sessionId"] = sess
			var res msg
			if a.ownOperation(s.Call.Method) {
				res = a.operate(s.Call.Method, params)
			} else {
				res = a.call(s.Call.Method, params)
			}
			next := s.IfOK
			if res.Error != nil {
				var e struct{ Message string }
				_ = json.Unmarshal(res.Error, &e)
				a.lastErr = e.Message
				next = s.IfError
			}
			if a.play(id, sess, next, cancel) {
				return true
			}
		case s.Stop != "":
			if a.isV2() {
				a.update(sess, map[string]any{"sessionUpdate": "state_update", "state": "idle", "stopReason": s.Stop})
				return true
			}
			a.reply(id, map[string]any{"stopReason": s.Stop, "_meta": map[string]any{"scriptagent": "kept"}})
			return true
		case s.Crash != nil:
			a.flush()
			os.Exit(*s.Crash)
		case s.Hang:
			select {}
		case s.WaitCancel:
			<-cancel
		case s.Chunks != nil:
			for i := 0; i < s.Chunks.N; i++ {
				a.update(sess, map[string]any{"sessionUpdate": "agent_message_chunk",
					"content": map[string]string{"type": "text", "text": fmt.Sprintf("chunk %d ", i)}})
			}
		case s.BigSay > 0:
			a.update(sess, map[string]any{"sessionUpdate": "agent_message_chunk",
				"content": map[string]string{"type": "text", "text": strings.Repeat("x", s.BigSay)}})
		case s.Stdout != "":
			a.raw(s.Stdout + "\n")
		case s.Async != nil:
			go a.play(id, sess, s.Async, cancel)
		case s.WaitFile != "":
			for {
				if _, err := os.Stat(s.WaitFile); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		case s.Stderr != "":
			fmt.Fprintln(os.Stderr, s.Stderr)
		}
	}
	return false
}

// ownOperation says whether the agent carries out a file or terminal
// request itself: the client did not offer it.
func (a *agent) ownOperation(method string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	offered, known := a.offered[method]
	return a.sc.OwnOperations && known && !offered
}

// operate carries out a file or terminal request as the agent's own tool:
// the result is what the client would have answered.
func (a *agent) operate(method string, params map[string]any) msg {
	fail := func(err error) msg {
		e, _ := json.Marshal(map[string]any{"code": -32603, "message": err.Error()})
		return msg{Error: e}
	}
	str := func(k string) string { s, _ := params[k].(string); return s }
	var out string
	switch method {
	case "fs/write_text_file":
		if err := os.WriteFile(str("path"), []byte(str("content")), 0o600); err != nil {
			return fail(err)
		}
	case "fs/read_text_file":
		data, err := os.ReadFile(str("path"))
		if err != nil {
			return fail(err)
		}
		out = string(data)
	case "terminal/create":
		var args []string
		if list, ok := params["args"].([]any); ok {
			for _, v := range list {
				s, _ := v.(string)
				args = append(args, s)
			}
		}
		data, err := exec.Command(str("command"), args...).CombinedOutput()
		out = string(data)
		if err != nil {
			return fail(fmt.Errorf("%v: %s", err, data))
		}
	}
	a.mu.Lock()
	a.lastOut = out
	a.mu.Unlock()
	return msg{Result: json.RawMessage(`{}`)}
}

func (a *agent) call(method string, params any) msg {
	a.mu.Lock()
	a.nextID++
	id := json.RawMessage(fmt.Sprint(a.nextID))
	ch := make(chan msg, 1)
	a.waiting[string(id)] = ch
	a.mu.Unlock()
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return <-ch
}

func (a *agent) update(sess string, u map[string]any) {
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sess, "update": u}})
}

func (a *agent) reply(id json.RawMessage, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *agent) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	a.raw(string(b) + "\n")
}

func (a *agent) raw(s string) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	_, _ = a.out.WriteString(s)
	_ = a.out.Flush()
}

func (a *agent) flush() {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	_ = a.out.Flush()
}

// isV2 reports whether initialize settled on ACP v2.
func (a *agent) isV2() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.v2
}

// modeOptions is the v2 config options of a session whose mode is current.
func (a *agent) modeOptions(current string) []any {
	var values []any
	for _, v := range a.sc.V2Modes {
		values = append(values, map[string]string{"value": v, "name": strings.ToUpper(v[:1]) + v[1:]})
	}
	return []any{map[string]any{"configId": "mode", "name": "Mode", "category": "mode", "type": "select",
		"currentValue": current, "options": values}}
}

// newMessageID is a v2 messageId: every message chunk carries one.
func (a *agent) newMessageID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.messages++
	return fmt.Sprintf("msg-%d", a.messages)
}
