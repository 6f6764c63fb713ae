package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wavehooks/wavehooks/internal/fakemodel"
)

// probeACP runs `wave acp --wave-home … --project … --trust-workspace --
// agent…` as an ACP editor would, with the probe hook in a temporary wave
// home and the agent pointed at a fake model, and sends one prompt whose
// scripted answer is one harmless tool call (offlineAgent says which).
// wave is the wavehooks command (the doctor's own binary, or the one an
// editor is configured with); env is the editor entry's own environment,
// under the probe's: no variable of the entry can point the agent away
// from the fake model (exec keeps a key's last value).
func probeACP(ctx context.Context, o Options, wave string, agent, env []string) (Status, string) {
	kind := knownAgent(agent)
	d, waveHome, err := newProbeWaveHome()
	if err != nil {
		return NotProbed, err.Error()
	}
	defer d.close()
	agentEnv, model, call, err := offlineAgent(kind, d, &agent)
	if err != nil {
		return NotProbed, err.Error()
	}
	if model != nil {
		defer model.Close()
	}
	argv := append([]string{wave, "acp", "--wave-home", waveHome, "--project", d.project, "--trust-workspace", "--"}, agent...)
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = d.project
	cmd.Env = append(slices.Clone(env), d.env(o, agentEnv...)...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	c := &rpcClient{reply: editorReply, peer: "wavehooks acp"}
	ran, err := talkTo(cmd, c, func(c *rpcClient) error { return editorPrompt(ctx, c, d.project) })
	if err != nil {
		return NotProbed, "cannot start wavehooks acp: " + err.Error()
	}
	what := fmt.Sprintf("wavehooks acp -- %s, a fake model asking for %s", filepath.Base(agent[0]), call)
	return d.verdict(what, ran, stderr.Bytes())
}

// offlineAgent is what points an agent of this kind at a fake model: its
// environment, the fake (closed by the caller), arguments added to argv,
// and the tool call the fake asks for, as the report says it.
func offlineAgent(kind string, d *probeDir, argv *[]string) (env []string, fake io.Closer, call string, err error) {
	switch kind {
	case agentClaudeACP:
		api, err := fakemodel.StartFakeAPI(probeTurns(d.target), "")
		if err != nil {
			return nil, nil, "", fmt.Errorf("cannot listen on loopback: %w", err)
		}
		return fakemodel.ClaudeEnv("http://" + api.Addr()), closerFunc(api.Close), "one Read of probe.txt", nil
	case agentCodexACP:
		turns := []fakemodel.Block{fakemodel.Call("", "exec_command", map[string]any{"cmd": "cat probe.txt"})}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
			switch {
			case r.Method == http.MethodConnect || r.URL.IsAbs():
				http.Error(w, "this proxy forwards nothing", http.StatusForbidden)
			case strings.HasSuffix(r.URL.Path, "/responses"):
				fakemodel.ServeResponses(w, body, turns)
			case strings.HasSuffix(r.URL.Path, "/models"):
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
			default:
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{}`)
			}
		}))
		codexHome := filepath.Join(d.root, "codex")
		if err := os.Mkdir(codexHome, 0o700); err != nil {
			srv.Close()
			return nil, nil, "", err
		}
		config := fakemodel.CodexConfig(srv.URL)
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
			srv.Close()
			return nil, nil, "", err
		}
		return []string{"CODEX_HOME=" + codexHome, "FAKE_OPENAI_API_KEY=sk-offline", "OPENAI_API_KEY=sk-offline",
			"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "HTTPS_PROXY=" + srv.URL, "HTTP_PROXY=" + srv.URL}, closerFunc(srv.Close), "one exec_command (cat probe.txt)", nil
	case agentGemini:
		if err := os.MkdirAll(filepath.Join(d.home, ".gemini"), 0o700); err != nil {
			return nil, nil, "", err
		}
		if err := os.WriteFile(filepath.Join(d.home, ".gemini", "settings.json"), []byte(fakemodel.GeminiSettings), 0o600); err != nil {
			return nil, nil, "", err
		}
		// Gemini CLI asks no permission for a read, and the proxy decides
		// PreToolUse at a permission request: a write asks (and the
		// doctor's editor refuses it, so nothing is written).
		script := fakemodel.GeminiTurn(map[string]any{"functionCall": map[string]any{"name": "write_file",
			"args": map[string]string{"file_path": filepath.Join(d.project, "probe-refused.txt"), "content": probeFileText}}}) +
			fakemodel.GeminiTurn(map[string]any{"text": "Done."})
		responses := filepath.Join(d.root, "gemini-responses.jsonl")
		if err := os.WriteFile(responses, []byte(script), 0o600); err != nil {
			return nil, nil, "", err
		}
		*argv = append(*argv, "--fake-responses-non-strict", responses)
		return []string{"GEMINI_CLI_HOME=" + d.home, "GEMINI_API_KEY=offline-wavehooks-doctor", "NO_COLOR=1"}, nil,
			"one write_file, which the doctor refuses (Gemini CLI asks no permission for reads, so no PreToolUse decides them)", nil
	}
	return nil, nil, "", errors.New("the doctor has no offline model for " + filepath.Base((*argv)[0]))
}

type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }

// editorReply is the doctor's editor's answer to the agent's request: the
// probe's text for a read (never a file from disk), a refusal for a
// permission request, an error for the rest.
func editorReply(m rpcMessage) map[string]any {
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	switch m.Method {
	case "fs/read_text_file":
		reply["result"] = map[string]any{"content": probeFileText}
	case "session/request_permission":
		var p struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		_ = json.Unmarshal(m.Params, &p)
		outcome := map[string]any{"outcome": "cancelled"}
		for _, o := range p.Options {
			if strings.HasPrefix(o.Kind, "reject") {
				outcome = map[string]any{"outcome": "selected", "optionId": o.OptionID}
				break
			}
		}
		reply["result"] = map[string]any{"outcome": outcome}
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "the doctor's editor does not offer " + m.Method}
	}
	return reply
}

// editorPrompt is the editor's whole conversation: initialize, one
// session, one prompt. The hook has run (or not) once the prompt is
// answered.
func editorPrompt(ctx context.Context, s *rpcClient, project string) error {
	if _, err := s.call(ctx, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]string{"name": "wavehooks-doctor", "version": "1"}}); err != nil {
		return err
	}
	res, err := s.call(ctx, "session/new", map[string]any{"cwd": project, "mcpServers": []any{}})
	if err != nil {
		return err
	}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &sess); err != nil || sess.SessionID == "" {
		return fmt.Errorf("session/new gave no sessionId: %s", res)
	}
	_, err = s.call(ctx, "session/prompt", map[string]any{"sessionId": sess.SessionID,
		"prompt": []any{map[string]string{"type": "text", "text": "wavehooks doctor probe: read probe.txt"}}})
	return err
}
