package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
)

// operation is an agent's file or terminal request seen as the tool call
// PreToolUse hooks judge (docs/acp.md has the table):
//
//	fs/write_text_file {path, content}     → Write {file_path, content}
//	fs/read_text_file  {path, line, limit} → Read  {file_path, offset, limit}
//	terminal/create    {command, args, cwd, env} → Bash {command, cwd, env}
type operation struct {
	sessionID string
	short     string // for the tool call's id
	kind      string // the ACP tool kind of the tool call it belongs to
	tool      string
	title     string
	input     json.RawMessage
	locations []acpmsg.ToolCallLocation
	// path, content and command are what the request names, to find the
	// tool call it belongs to (decidedOwner).
	path, content, command string
	// apply writes a hook's updatedInput into the request's params.
	apply func(params acpmsg.Object, updated json.RawMessage) (acpmsg.Object, error)
}

// operationOf reads a file or terminal request's params; an error when
// they are not what ACP says they are (a path that is not a string, …):
// what the hooks cannot read, they cannot judge.
func operationOf(method string, params json.RawMessage) (operation, error) {
	switch method {
	case methodWriteTextFile:
		var req acpmsg.WriteTextFileRequest
		if err := decodeExact(params, &req); err != nil {
			return operation{}, err
		}
		return operation{sessionID: req.SessionID, short: "write", kind: "edit", tool: "Write", title: "Write " + req.Path, path: req.Path,
			content:   req.Content,
			input:     mustRaw(acpmsg.WriteInput{FilePath: req.Path, Content: req.Content}),
			locations: []acpmsg.ToolCallLocation{{Path: req.Path}},
			apply:     applyFileInput(map[string]string{"file_path": "path", "content": "content"}),
		}, nil
	case methodReadTextFile:
		var req acpmsg.ReadTextFileRequest
		if err := decodeExact(params, &req); err != nil {
			return operation{}, err
		}
		in := acpmsg.ReadInput{FilePath: req.Path}
		if !isNull(req.Line) {
			in.Offset = req.Line
		}
		if !isNull(req.Limit) {
			in.Limit = req.Limit
		}
		return operation{sessionID: req.SessionID, short: "read", kind: "read", tool: "Read", title: "Read " + req.Path, input: mustRaw(in), path: req.Path,
			locations: []acpmsg.ToolCallLocation{{Path: req.Path}},
			apply:     applyFileInput(map[string]string{"file_path": "path", "offset": "line", "limit": "limit"}),
		}, nil
	default: // terminal/create
		var req acpmsg.CreateTerminalRequest
		if err := decodeExact(params, &req); err != nil {
			return operation{}, err
		}
		line := req.Command
		if len(req.Args) > 0 {
			line = shellJoin(append([]string{req.Command}, req.Args...))
		}
		in := acpmsg.BashInput{Command: line, Cwd: req.Cwd}
		// The environment the command runs with is part of what it does
		// (PATH, LD_PRELOAD, BASH_ENV …): hooks see ACP's list as it came.
		if !isNull(req.Env) {
			in.Env = req.Env
		}
		hadArgs := len(req.Args) > 0
		return operation{sessionID: req.SessionID, short: "terminal", kind: "execute", tool: "Bash", title: "Run " + line, input: mustRaw(in), command: line,
			apply: func(params acpmsg.Object, updated json.RawMessage) (acpmsg.Object, error) {
				return applyCommand(params, updated, line, hadArgs)
			},
		}, nil
	}
}

// applyFileInput maps the fields of a Write or Read tool input back to the
// request's params. A file_path must be absolute, as ACP requires of paths.
func applyFileInput(fields map[string]string) func(acpmsg.Object, json.RawMessage) (acpmsg.Object, error) {
	return func(params acpmsg.Object, updated json.RawMessage) (acpmsg.Object, error) {
		in, err := decodeObject(updated)
		if err != nil {
			return nil, errors.New("it is not a JSON object")
		}
		out := make(acpmsg.Object, len(params))
		for k, v := range params {
			out[k] = v
		}
		for from, to := range fields {
			v, ok := in[from]
			if !ok {
				continue
			}
			if from == "file_path" {
				var p string
				if decode(v, &p) != nil || !filepath.IsAbs(p) {
					return nil, fmt.Errorf("file_path must be an absolute path, not %s", v)
				}
				v = mustRaw(filepath.Clean(p))
			}
			out[to] = v
		}
		return out, nil
	}
}

// applyCommand writes a Bash tool input's command back into terminal/create.
// A request that named a program and its arguments gets the new command
// line run by sh -c; one that named only a command gets the new one in its
// place. An updatedInput that names its own "args" sets command and
// arguments as given.
func applyCommand(params acpmsg.Object, updated json.RawMessage, old string, hadArgs bool) (acpmsg.Object, error) {
	var in acpmsg.UpdatedBashInput
	if err := decode(updated, &in); err != nil {
		return nil, errors.New("command must be a string, args a list of strings, cwd a string, env a list of {name, value}")
	}
	out := make(acpmsg.Object, len(params))
	for k, v := range params {
		out[k] = v
	}
	switch {
	case in.Command == nil || *in.Command == "":
		return nil, errors.New("it has no command")
	case in.Args != nil:
		out["command"], out["args"] = mustRaw(*in.Command), mustRaw(*in.Args)
	case *in.Command == old:
	case hadArgs:
		out["command"], out["args"] = mustRaw("sh"), mustRaw([]string{"-c", *in.Command})
	default:
		out["command"] = mustRaw(*in.Command)
	}
	if in.Cwd != nil {
		if !filepath.IsAbs(*in.Cwd) {
			return nil, fmt.Errorf("cwd must be an absolute path, not %q", *in.Cwd)
		}
		out["cwd"] = mustRaw(filepath.Clean(*in.Cwd))
	}
	if in.Env != nil {
		env := make([]acpmsg.EnvVariable, 0, len(*in.Env))
		for i, v := range *in.Env {
			if v.Name == nil || *v.Name == "" || v.Value == nil {
				return nil, fmt.Errorf("env[%d] must be {\"name\": a name, \"value\": a string}", i)
			}
			env = append(env, acpmsg.EnvVariable{Name: *v.Name, Value: *v.Value})
		}
		out["env"] = mustRaw(env)
	}
	return out, nil
}

// decidedOwner finds the tool call a file or terminal request belongs to
// when that call was already decided at its permission request (or at the
// hook bridge) and allowed: Gemini CLI asks permission for write_file,
// then reads and writes the file through the editor. Such a request is
// the same logical tool call, so its hooks do not run again and the user
// is not asked again. It belongs to the call only when it does what the
// call was judged on: a read or write of a path the call names (a write
// only with the content of the call's diff for that path, the content the
// hooks saw), a terminal running the call's command, and only when every
// PreToolUse hook that matches the request's tool also matched the call's
// (a hook on Write alone did not judge Gemini's write_file of an existing
// file, which is an Edit). Anything else is judged on its own. What the
// request is matched against is the call as it was when decided
// (judgment.as), never as the agent's later updates left it: the decision
// binds the input it judged (binding.go).
func (st *sessState) decidedOwner(op *operation, ig agents.Integration) *toolState {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.open) - 1; i >= 0; i-- {
		t := st.open[i]
		j := t.judged
		if t.denied || j == nil || t.checked == "" || t.checked == methodWriteTextFile || t.checked == methodReadTextFile || t.checked == methodTerminalCreate {
			continue
		}
		if name, input := t.describe(); !j.agrees(name, input, ig) {
			continue // changed since it was decided: judged again (rejudge), never owned
		}
		if name, _ := j.as.describe(); j.as.owns(op) && st.ws.judgedBySameHooks(name, op.tool) {
			return t
		}
	}
	return nil
}

// owns says whether a file or terminal request does what the tool call was
// judged on (decidedOwner); the caller holds the session's lock.
func (t *toolState) owns(op *operation) bool {
	switch op.kind {
	case "execute":
		if t.kind != "execute" || op.command == "" {
			return false
		}
		_, input := t.describe()
		var in struct {
			Command string `json:"command"`
		}
		return decode(input, &in) == nil && in.Command == op.command
	case "read":
		return (t.kind == "read" || t.kind == "edit") && op.path != "" && t.names(op.path)
	case "edit":
		if t.kind != "edit" || op.path == "" {
			return false
		}
		for _, c := range t.content {
			var d acpmsg.Diff
			if decode(c, &d) == nil && d.Type == "diff" && filepath.Clean(d.Path) == filepath.Clean(op.path) && d.NewText == op.content {
				return true
			}
		}
	}
	return false
}

// names says whether the tool call names path: in its locations, its
// diffs or its input's file path.
func (t *toolState) names(path string) bool {
	path = filepath.Clean(path)
	for _, l := range t.locations {
		if l.Path != "" && filepath.Clean(l.Path) == path {
			return true
		}
	}
	for _, c := range t.content {
		var d acpmsg.Diff
		if decode(c, &d) == nil && d.Type == "diff" && d.Path != "" && filepath.Clean(d.Path) == path {
			return true
		}
	}
	in, _ := decodeObject(t.rawInput)
	if p := firstString(in, "file_path", "path", "abs_path", "absolute_path"); p != "" && filepath.Clean(p) == path {
		return true
	}
	return false
}

// judgedBySameHooks reports whether every PreToolUse hook that would run for
// the tool named op also matches the tool named decided: only then did the
// decision on decided judge what op does.
func (w *workspace) judgedBySameHooks(decided, op string) bool {
	if decided == op {
		return true
	}
	cfg := w.Engine.Config()
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event != event.PreToolUse || !h.Matcher.Match(op) || h.Matcher.Match(decided) {
			continue
		}
		if ok, _ := cfg.Active(h); ok {
			return false
		}
	}
	return true
}
