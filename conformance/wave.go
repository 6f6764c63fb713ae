//go:build linux

package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wavehooks/wavehooks/internal/proctest"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// Wave plays scenarios through wavehooks: the built `wavehooks serve`,
// spoken to over OS pipes with jsonrpc2, and an agent host standing in for
// the editor extension. The host does what docs/hooks.md tells an agent host
// to do with each answer (run the tool or not, with which input; go on after
// a blocked Stop; end the turn on continue:false), runs the tools itself, and
// asks wave/apiMessages what the model receives each time it calls the model.
// What the host itself supplies and wavehooks only passes on (a tool's
// response, a failure's error text, PermissionRequest's suggestions,
// SessionEnd's reason) is taken from Claude Code's run of the same scenario,
// so the comparison is about what wavehooks does with it.
type Wave struct {
	Binary  string
	Timeout time.Duration
}

// Run plays s in dir (project/, home/, wavehome/, tmp/). oracle is Claude
// Code's observation of the same scenario.
func (w *Wave) Run(ctx context.Context, s *Scenario, dir string, oracle *Observation) (*Observation, error) {
	proj, home := filepath.Join(dir, "project"), filepath.Join(dir, "home")
	waveHome, tmp := filepath.Join(dir, "wavehome"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, waveHome, tmp, filepath.Join(proj, ".wave")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := s.WriteProject(proj); err != nil {
		return nil, err
	}
	// Claude Code's own settings file, imported as it is.
	if err := os.WriteFile(filepath.Join(proj, ".wave", "settings.json"), []byte(`{"importClaudeHooks": true}`+"\n"), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, w.Timeout)
	defer cancel()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8",
		"WAVE_MANAGED_SETTINGS=" + filepath.Join(dir, "no-managed-settings.json")}
	srv, err := startServer(ctx, w.Binary, proj, waveHome, env)
	if err != nil {
		return nil, err
	}
	h := &host{srv: srv, s: s, proj: proj, cwd: proj, env: slices.Clone(env), oracle: oracle,
		obs: &Observation{Dirs: map[string]string{proj: "$PROJECT", home: "$HOME"}}}
	playErr := h.play(ctx)
	if err := srv.close(); err != nil && playErr == nil {
		playErr = err
	}
	if playErr != nil {
		return nil, fmt.Errorf("%w; server stderr: %s", playErr, tail(srv.stderr.Bytes()))
	}
	if h.obs.Calls, err = s.ReadCalls(proj); err != nil {
		return nil, err
	}
	if h.obs.Markers, err = Markers(proj); err != nil {
		return nil, err
	}
	return h.obs, nil
}

// server is a running `wavehooks serve` and the connection to it.
type server struct {
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	stdin  io.WriteCloser
	stderr proctest.Output
	done   chan error
}

// pipes joins the server's stdout and stdin into the connection's stream.
type pipes struct {
	io.Reader
	io.WriteCloser
}

func startServer(ctx context.Context, bin, proj, waveHome string, env []string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--wave-home", waveHome)
	cmd.Dir, cmd.Env = proj, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	srv := &server{cmd: cmd, done: make(chan error, 1)}
	cmd.Stderr = &srv.stderr
	var err error
	if srv.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { srv.done <- cmd.Wait() }()
	srv.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, srv.stdin}))
	srv.conn.Go(ctx, answerServer)
	var init json.RawMessage
	if err := srv.call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": string(uri.File(proj)), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": waveHome, "trustWorkspaceHooks": true},
	}, &init); err != nil {
		_ = srv.close()
		return nil, err
	}
	if err := srv.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		_ = srv.close()
		return nil, err
	}
	return srv, nil
}

// answerServer answers what the server asks the editor. An "ask" permission
// prompt gets "Deny": like Claude Code in -p mode, the host has no one to
// grant it.
func answerServer(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if req.Method() == "window/showMessageRequest" {
		return reply(ctx, map[string]string{"title": "Deny"}, nil)
	}
	return reply(ctx, nil, nil)
}

func (srv *server) call(ctx context.Context, method string, params, result any) error {
	if _, err := srv.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// close shuts the server down and waits for it; after 10 s it is killed.
func (srv *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.call(ctx, "shutdown", nil, nil)
	_ = srv.conn.Notify(ctx, "exit", nil)
	_ = srv.stdin.Close()
	var err error
	select {
	case err = <-srv.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-srv.cmd.Process.Pid, syscall.SIGKILL)
		err = <-srv.done
		if err == nil {
			err = errors.New("wavehooks serve did not exit")
		}
	}
	_ = srv.conn.Close()
	<-srv.conn.Done()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		err = nil
	}
	return err
}

// host is the agent host: it plays the scenario's model turns against the server.
type host struct {
	srv    *server
	s      *Scenario
	proj   string
	env    []string
	oracle *Observation
	obs    *Observation
	sid    string
	// cwd is the agent's working directory: a Bash `cd` moves it, as in
	// Claude Code, and CwdChanged fires.
	cwd string
	// tasks are the task list's subjects and descriptions (TaskCreate), by id.
	tasks []task
	// ids numbers the turn and message ids MessageDisplay hooks get.
	ids int
}

// task is one entry of the host's task list.
type task struct{ subject, description string }

// result is the part of a wave/* result the host acts on.
type result struct {
	SessionID  string          `json:"sessionId"`
	Permission string          `json:"permission"`
	ToolInput  json.RawMessage `json:"toolInput"`
	Blocked    bool            `json:"blocked"`
	Reason     string          `json:"reason"`
	Continue   bool            `json:"continue"`
	// Action and Content are an Elicitation or ElicitationResult answer.
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
	// Env is what SessionStart hooks wrote to CLAUDE_ENV_FILE: the host
	// gives it to every later tool run, as Claude Code does.
	Env map[string]string `json:"env"`
	// InitialUserMessage is a first turn SessionStart hooks asked for.
	InitialUserMessage string `json:"initialUserMessage"`
	raw                json.RawMessage
}

func (h *host) call(ctx context.Context, method string, params map[string]any) (result, error) {
	if h.sid != "" {
		params["sessionId"] = h.sid
	}
	var raw json.RawMessage
	if err := h.srv.call(ctx, method, params, &raw); err != nil {
		return result{}, err
	}
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		return result{}, fmt.Errorf("%s: %w", method, err)
	}
	r.raw = raw
	return r, nil
}

// maxTurns bounds a scenario's agent loop (a Stop hook that always blocks).
const maxTurns = 12

func (h *host) play(ctx context.Context) error {
	start, err := h.call(ctx, "wave/sessionStart", map[string]any{"source": "startup"})
	if err != nil {
		return err
	}
	h.sid = start.SessionID
	for _, name := range slices.Sorted(maps.Keys(start.Env)) {
		h.env = append(h.env, name+"="+start.Env[name])
	}
	if err := h.startupEvents(ctx); err != nil {
		return err
	}
	prompt := h.s.Prompt
	if prompt == "" {
		prompt = defaultPrompt
	}
	// A SessionStart hook's initialUserMessage is a turn of its own before
	// the user's prompt, with its own UserPromptSubmit and Stop (measured on
	// Claude Code 2.1.330: scenario session-start-host).
	prompts := []string{prompt}
	if start.InitialUserMessage != "" {
		prompts = append([]string{start.InitialUserMessage}, prompts...)
	}
	replies := 0
	for i, ended := 0, !start.Continue; i < len(prompts) && !ended; i++ {
		if ended, err = h.turn(ctx, prompts[i], &replies); err != nil {
			return err
		}
	}
	reason := "other"
	if r := h.hostValue("SessionEnd", nil, "reason"); r != nil {
		_ = json.Unmarshal(r, &reason)
	}
	_, err = h.call(ctx, "wave/sessionEnd", map[string]any{"reason": reason})
	return err
}

// turn plays one prompt to the end of its turn: UserPromptSubmit, the
// model's replies (the scenario's Turns, counted over the whole session by
// replies) with their tool calls, and Stop. ended says the session must end
// (a hook stopped it, or the turn failed).
func (h *host) turn(ctx context.Context, prompt string, replies *int) (ended bool, err error) {
	ups, err := h.call(ctx, "wave/userPromptSubmit", map[string]any{"prompt": prompt})
	if err != nil {
		return false, err
	}
	if !ups.Continue {
		return true, nil
	}
	if ups.Blocked {
		return false, nil
	}
	if stopped, err := h.expandPrompt(ctx, prompt); stopped || err != nil {
		return stopped, err
	}
	turnID := h.newID("turn")
	for n := 0; n < maxTurns; n++ {
		if err := h.callModel(ctx); err != nil {
			return false, err
		}
		blocks := []Block{Say("Done.")}
		if *replies < len(h.s.Turns) {
			blocks = h.s.Turns[*replies]
		}
		*replies++
		if failed, err := h.apiError(ctx, blocks); failed || err != nil {
			return true, err
		}
		if err := h.addAssistant(ctx, blocks); err != nil {
			return false, err
		}
		if err := h.display(ctx, turnID, blocks); err != nil {
			return false, err
		}
		var batch []string
		for _, b := range blocks {
			if b.ToolName == "" {
				continue
			}
			batch = append(batch, b.ToolID)
			goOn, err := h.toolCall(ctx, b)
			if err != nil || !goOn {
				return !goOn, err
			}
		}
		if len(batch) > 0 {
			if stopped, err := h.postToolBatch(ctx, batch); stopped || err != nil {
				return stopped, err
			}
			continue
		}
		stop, err := h.call(ctx, "wave/stop", map[string]any{})
		if err != nil {
			return false, err
		}
		if !stop.Continue {
			return true, nil
		}
		if !stop.Blocked {
			return false, nil
		}
	}
	return true, nil
}

// startupEvents are the later events of a session's start: Setup when the
// agent was started with --init, InstructionsLoaded for the project's
// CLAUDE.md (the host reports the instruction files it loads).
func (h *host) startupEvents(ctx context.Context) error {
	if slices.Contains(h.s.Args, "--init") {
		if _, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "Setup", "input": object("trigger", "init")}); err != nil {
			return err
		}
	}
	if _, ok := h.s.Files["CLAUDE.md"]; ok {
		if _, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "InstructionsLoaded", "input": object(
			"file_path", filepath.Join(h.proj, "CLAUDE.md"), "memory_type", "Project", "load_reason", "session_start")}); err != nil {
			return err
		}
	}
	return nil
}

// expandPrompt fires UserPromptExpansion when the prompt is one of the
// project's slash commands (.claude/commands/NAME.md), before the host
// expands it; it reports whether the turn ends (a blocked expansion is
// not sent to the model).
func (h *host) expandPrompt(ctx context.Context, prompt string) (bool, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(prompt, "/"), " ")
	if !strings.HasPrefix(prompt, "/") {
		return false, nil
	}
	if _, ok := h.s.Files[".claude/commands/"+name+".md"]; !ok {
		return false, nil
	}
	res, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "UserPromptExpansion", "input": object(
		"expansion_type", "slash_command", "command_name", name, "command_args", args,
		"command_source", "projectSettings", "prompt", prompt)})
	if err != nil {
		return false, err
	}
	if res.Blocked || !res.Continue {
		return true, nil
	}
	return false, h.skillShell(ctx, name, h.s.Files[".claude/commands/"+name+".md"])
}

// skillShellPattern finds the shell commands written inside a slash
// command or skill in Claude Code's !`…` form.
var skillShellPattern = regexp.MustCompile("!`([^`]+)`")

// skillShell runs the shell commands written inside the slash command name
// (text is its file), as Claude Code does when it expands the command,
// each after PreSkillShellCommand (Claude Code 2.1.332): allow adds
// nothing; deny, ask and defer, a block, continue:false or a rewritten
// input keep the command from running. Claude Code puts the command's
// output, or "[not run: blocked by hook: REASON]", into the expanded text;
// that text is the host's own, which this host does not send (it submits
// the prompt as typed, as Claude Code's UserPromptSubmit sees it).
func (h *host) skillShell(ctx context.Context, name, text string) error {
	for i, m := range skillShellPattern.FindAllStringSubmatch(text, -1) {
		command := m[1]
		input := object("tool_name", "Bash", "tool_input", object("command", command),
			"tool_use_id", fmt.Sprintf("%s:preamble-%d", h.newID("skill"), i), "command_name", name,
			"command_source", "projectSettings", "invoked_by", "user")
		res, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "PreSkillShellCommand", "input": input})
		if err != nil {
			if !strings.Contains(err.Error(), `unknown event "PreSkillShellCommand"`) {
				return err
			}
			// wavehooks does not know the event yet (it refuses it by
			// name): the command runs as with no hook, and the rows say so.
			res = result{Continue: true}
		}
		if kept := res.Blocked || !res.Continue || slices.Contains([]string{"deny", "ask", "defer"}, res.Permission) ||
			(len(res.ToolInput) > 0 && !jsonEqual(res.ToolInput, mustJSON(map[string]string{"command": command}))); kept {
			continue
		}
		if _, _, err := h.runTool(ctx, "Bash", mustJSON(map[string]string{"command": command})); err != nil {
			return err
		}
	}
	return nil
}

// apiError plays a scripted API error (a Fail block): the turn ends and
// StopFailure fires instead of Stop. The error's name and the message the
// host shows for it (last_assistant_message) are the host's: they are
// taken from Claude Code's run.
func (h *host) apiError(ctx context.Context, blocks []Block) (bool, error) {
	for _, b := range blocks {
		if b.Status == 0 {
			continue
		}
		fields := []any{"error", "unknown"}
		if e := h.hostValue("StopFailure", nil, "error"); e != nil {
			fields[1] = e
		}
		if m := h.hostValue("StopFailure", nil, "last_assistant_message"); m != nil {
			fields = append(fields, "last_assistant_message", m)
		}
		_, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "StopFailure", "input": object(fields...)})
		return true, err
	}
	return false, nil
}

// display fires MessageDisplay for each text the model's message shows the
// user, as one final delta.
func (h *host) display(ctx context.Context, turnID string, blocks []Block) error {
	for _, b := range blocks {
		if b.ToolName != "" || b.Text == "" {
			continue
		}
		_, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "MessageDisplay", "input": object(
			"turn_id", turnID, "message_id", h.newID("message"), "index", 0, "final", true, "delta", b.Text)})
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *host) newID(kind string) string {
	h.ids++
	return fmt.Sprintf("%s-%d", kind, h.ids)
}

// postToolBatch marks the model message's tool calls as one batch; it
// reports whether the turn ends (a block stops the loop before the next
// model call).
func (h *host) postToolBatch(ctx context.Context, ids []string) (bool, error) {
	res, err := h.call(ctx, "wave/postToolBatch", map[string]any{"toolUseIds": ids})
	if err != nil {
		return false, err
	}
	return res.Blocked || !res.Continue, nil
}

// callModel is the moment the host sends the conversation to the model:
// what wave/apiMessages says then is what the model receives.
func (h *host) callModel(ctx context.Context) error {
	var res struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := h.srv.call(ctx, "wave/apiMessages", map[string]any{"sessionId": h.sid}, &res); err != nil {
		return err
	}
	body, err := json.Marshal(map[string]json.RawMessage{"messages": res.Messages})
	if err != nil {
		return err
	}
	h.obs.ModelCalls++
	h.obs.Model = append(h.obs.Model, requestTexts(body)...)
	return nil
}

func (h *host) addAssistant(ctx context.Context, blocks []Block) error {
	wire := make([]map[string]any, 0, len(blocks))
	for _, b := range blocks {
		if b.ToolName != "" {
			wire = append(wire, map[string]any{"type": "tool", "id": b.ToolID, "name": b.ToolName, "input": b.ToolInput})
		} else {
			wire = append(wire, map[string]any{"type": "text", "content": b.Text})
		}
	}
	_, err := h.call(ctx, "wave/addAssistantMessage", map[string]any{"blocks": wire})
	return err
}

// toolCall is one tool call: PreToolUse, the host's own permission check
// (PermissionRequest when the tool is not allowed and no hook decided), the
// tool, then PostToolUse or PostToolUseFailure. It reports whether the
// agent goes on.
func (h *host) toolCall(ctx context.Context, b Block) (bool, error) {
	input, err := json.Marshal(b.ToolInput)
	if err != nil {
		return false, err
	}
	pre, err := h.call(ctx, "wave/preToolUse", map[string]any{"toolUseId": b.ToolID, "toolName": b.ToolName, "toolInput": json.RawMessage(input)})
	if err != nil {
		return false, err
	}
	if !pre.Continue {
		return false, nil
	}
	if pre.Permission == "defer" {
		// A deferred call waits for the host to resume it; like Claude
		// Code's -p mode (2.1.332: the session ends with stop_reason
		// "tool_deferred", no Stop), this host ends the turn unrun.
		return false, nil
	}
	allowed, effective := pre.Permission == "allow", pre.ToolInput
	if allowed && !slices.Contains(h.s.AllowedTools(), b.ToolName) && !preToolUseDecided(pre.raw) {
		suggestions := h.hostValue("PermissionRequest", func(in map[string]json.RawMessage) bool {
			return jsonEqual(in["tool_input"], effective)
		}, "permission_suggestions")
		if suggestions == nil {
			suggestions = json.RawMessage(`[]`)
		}
		pr, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "PermissionRequest", "input": map[string]any{
			"tool_name": b.ToolName, "tool_input": effective, "tool_use_id": b.ToolID, "permission_suggestions": suggestions}})
		if err != nil {
			return false, err
		}
		if !pr.Continue {
			return false, nil
		}
		switch pr.Permission {
		case "allow":
			if len(pr.ToolInput) > 0 {
				effective = pr.ToolInput
			}
		case "deny":
			allowed = false
		default: // no hook decided and no one to ask: the host refuses, as Claude Code's -p mode does
			allowed = false
			_, err := h.call(ctx, "wave/addAssistantMessage", map[string]any{"blocks": []map[string]any{{
				"type": "tool", "id": b.ToolID, "name": b.ToolName, "result": b.ToolName + " needs approval", "success": false}}})
			if err != nil {
				return false, err
			}
		}
	}
	if !allowed {
		return true, nil
	}
	response, failure, err := h.runTool(ctx, b.ToolName, effective)
	if err != nil {
		return false, err
	}
	byID := func(in map[string]json.RawMessage) bool { return jsonEqual(in["tool_use_id"], mustJSON(b.ToolID)) }
	if failure != "" {
		if e := h.hostValue("PostToolUseFailure", byID, "error"); e != nil {
			_ = json.Unmarshal(e, &failure)
		}
		if _, err := h.call(ctx, "wave/addAssistantMessage", map[string]any{"blocks": []map[string]any{{
			"type": "tool", "id": b.ToolID, "name": b.ToolName, "result": failure, "success": false}}}); err != nil {
			return false, err
		}
		res, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "PostToolUseFailure", "input": map[string]any{
			"tool_name": b.ToolName, "tool_input": effective, "tool_use_id": b.ToolID, "error": failure, "is_interrupt": false}})
		if err != nil {
			return false, err
		}
		return res.Continue, nil
	}
	if r := h.hostValue("PostToolUse", byID, "tool_response"); r != nil {
		response = r
	}
	post, err := h.call(ctx, "wave/postToolUse", map[string]any{"toolUseId": b.ToolID, "toolName": b.ToolName,
		"toolInput": effective, "toolResponse": response})
	if err != nil {
		return false, err
	}
	return post.Continue, nil
}

// preToolUseDecided says whether a PreToolUse hook decided (an explicit
// allow lets the tool skip the host's permission prompt, as in Claude Code):
// the result's "decision" is "none" when no hook said anything.
func preToolUseDecided(raw json.RawMessage) bool {
	var r struct {
		Decision string `json:"decision"`
	}
	return json.Unmarshal(raw, &r) == nil && r.Decision != "" && r.Decision != "none"
}

// runTool runs a tool as the agent would, in the project: Bash with sh,
// the MCP tool by creating its file. It returns the tool's response and, when
// it failed, the error text.
func (h *host) runTool(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, string, error) {
	switch name {
	case "Bash":
		var in struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, "", fmt.Errorf("the Bash tool's input: %w", err)
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		// The command runs in the agent's directory; where it ends up is
		// the next command's (fd 3 reports it, as Claude Code keeps a cd).
		cwdR, cwdW, err := os.Pipe()
		if err != nil {
			return nil, "", err
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", in.Command+"\n__rc=$?; pwd >&3; exit $__rc")
		cmd.Dir, cmd.Env = h.cwd, h.env
		cmd.ExtraFiles = []*os.File{cwdW}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		_ = cwdW.Close()
		where, _ := io.ReadAll(cwdR)
		_ = cwdR.Close()
		if dir := strings.TrimSpace(string(where)); dir != "" && dir != h.cwd {
			if _, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "CwdChanged", "input": object("old_cwd", h.cwd, "new_cwd", dir)}); err != nil {
				return nil, "", err
			}
			h.cwd = dir
		}
		resp := mustJSON(map[string]any{"stdout": strings.TrimRight(stdout.String(), "\n"), "stderr": strings.TrimRight(stderr.String(), "\n"),
			"interrupted": false, "isImage": false, "noOutputExpected": false})
		var exit *exec.ExitError
		switch {
		case err == nil:
			return resp, "", nil
		case errors.As(err, &exit):
			return resp, strings.TrimRight(fmt.Sprintf("Exit code %d\n%s%s", exit.ExitCode(), stdout.String(), stderr.String()), "\n"), nil
		default:
			return nil, "", err
		}
	case mcpTool:
		var in struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(input, &in); err != nil || !markerName.MatchString(in.Name) {
			return nil, "", fmt.Errorf("%s input %s", mcpTool, input)
		}
		if err := os.WriteFile(filepath.Join(h.proj, in.Name), nil, 0o644); err != nil {
			return nil, "", err
		}
		return mustJSON([]any{map[string]any{"type": "text", "text": "touched " + in.Name}}), "", nil
	case mcpAskTool:
		return h.ask(ctx, input)
	case "TaskCreate", "TaskUpdate":
		return h.taskTool(ctx, name, input)
	}
	return nil, "", fmt.Errorf("the host cannot run tool %q", name)
}

// hostValue is a value the host supplies for event (the first of Claude
// Code's hook inputs of that event that match), or nil.
func (h *host) hostValue(event string, match func(map[string]json.RawMessage) bool, key string) json.RawMessage {
	for _, name := range sortedKeys(h.oracle.Calls) {
		for _, c := range h.oracle.Calls[name] {
			var in map[string]json.RawMessage
			if json.Unmarshal(c.Stdin, &in) != nil || !jsonEqual(in["hook_event_name"], mustJSON(event)) {
				continue
			}
			if match == nil || match(in) {
				return in[key]
			}
		}
	}
	return nil
}

// object is a JSON object with its keys in the order given (key, value,
// key, value, …): the host sends wave/runHooks input in Claude Code's order,
// as a host that builds it field by field would.
func object(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(kv[i]))
		b.WriteByte(':')
		b.Write(mustJSON(kv[i+1]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// jsonEqual compares two JSON values by meaning.
func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ask runs the MCP tool that asks the user first: the MCP server's
// elicitation goes to the Elicitation hooks, and, when none answers, to the
// user, whom the host (like Claude Code's -p mode) does not have: the answer
// is "cancel", which ElicitationResult hooks see and may change. The marker
// file is named after the answer that reaches the server.
func (h *host) ask(ctx context.Context, input json.RawMessage) (json.RawMessage, string, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(input, &in); err != nil || !markerName.MatchString(in.Name) {
		return nil, "", fmt.Errorf("%s input %s", mcpAskTool, input)
	}
	el, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "Elicitation", "input": object(
		"mcp_server_name", "conf", "message", elicitationRequest["message"], "mode", "form",
		"requested_schema", elicitationRequest["requestedSchema"])})
	if err != nil {
		return nil, "", err
	}
	action, content := el.Action, el.Content
	if action == "" {
		// No hook answered: the user's answer, and ElicitationResult hooks
		// may change it.
		action, content = "cancel", nil
		fields := []any{"mcp_server_name", "conf", "mode", "form", "action", action}
		res, err := h.call(ctx, "wave/runHooks", map[string]any{"event": "ElicitationResult", "input": object(fields...)})
		if err != nil {
			return nil, "", err
		}
		if res.Action != "" {
			action, content = res.Action, res.Content
		}
	}
	name := in.Name + "-" + action
	var c struct {
		Answer string `json:"answer"`
	}
	if action == "accept" && json.Unmarshal(content, &c) == nil && c.Answer != "" {
		name += "-" + c.Answer
	}
	if !markerName.MatchString(name) {
		return nil, "", fmt.Errorf("the answer makes no file name: %q", name)
	}
	if err := os.WriteFile(filepath.Join(h.proj, name), nil, 0o644); err != nil {
		return nil, "", err
	}
	return mustJSON([]any{map[string]any{"type": "text", "text": "touched " + name}}), "", nil
}

// taskTool runs the task list's tools: TaskCreate fires TaskCreated and
// TaskUpdate to "completed" TaskCompleted before the change is made. A hook
// that blocks keeps it from being made: its reason is TaskCreate's error,
// and feedback in TaskUpdate's result (as Claude Code does).
func (h *host) taskTool(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, string, error) {
	var in struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
		TaskID      string `json:"taskId"`
		Status      string `json:"status"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, "", fmt.Errorf("%s input: %w", name, err)
	}
	// A task without a description has its subject as one, as in Claude Code.
	event, t, id := "TaskCreated", task{in.Subject, cmp.Or(in.Description, in.Subject)}, fmt.Sprint(len(h.tasks)+1)
	if name == "TaskUpdate" {
		var n int
		if _, err := fmt.Sscan(in.TaskID, &n); err != nil || n < 1 || n > len(h.tasks) {
			return nil, "", fmt.Errorf("TaskUpdate of an unknown task %q", in.TaskID)
		}
		if in.Status != "completed" {
			return mustJSON(map[string]any{"success": true}), "", nil
		}
		event, t, id = "TaskCompleted", h.tasks[n-1], in.TaskID
	}
	res, err := h.call(ctx, "wave/runHooks", map[string]any{"event": event, "input": object(
		"task_id", id, "task_subject", t.subject, "task_description", t.description)})
	if err != nil {
		return nil, "", err
	}
	switch {
	case res.Blocked && name == "TaskCreate":
		return nil, res.Reason, nil // the tool fails with the reason
	case res.Blocked:
		// The task stays open; the reason is feedback in the tool's result,
		// which the host renders as text for the model.
		return mustJSON("TaskCompleted hook feedback:\n" + res.Reason), "", nil
	}
	if name == "TaskCreate" {
		h.tasks = append(h.tasks, t)
	}
	return mustJSON(map[string]any{"success": true}), "", nil
}
