package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/session"
)

// demoScript is testdata/demo/script.json: the steps an agent and its user take.
type demoScript struct {
	Steps []demoStep `json:"steps"`
}

type demoStep struct {
	Say          string          `json:"say"`
	SessionStart string          `json:"sessionStart"`
	Prompt       string          `json:"prompt"`
	Assistant    []session.Block `json:"assistant"`
	PreToolUse   string          `json:"preToolUse"`
	Answer       string          `json:"answer"`
	PostToolUse  json.RawMessage `json:"postToolUse"`
	Stop         bool            `json:"stop"`
	SessionEnd   string          `json:"sessionEnd"`
}

// demo plays testdata/demo/script.json against the example hooks of
// testdata/demo/settings.json in a temporary WAVE_HOME and prints the
// conversation as a user would read it, each hook's contribution marked.
func demo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "demo directory (default testdata/demo, found from the current directory or the binary)")
	keep := fs.Bool("keep", false, "keep the temporary WAVE_HOME and print where it is")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := playDemo(*dir, *keep, stdout); err != nil {
		fmt.Fprintln(stderr, "wavehooks demo:", err)
		return 1
	}
	return 0
}

func findDemoDir(dir string) (string, error) {
	candidates := []string{dir}
	if dir == "" {
		candidates = []string{"testdata/demo"}
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "testdata", "demo"))
		}
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "script.json")); err == nil {
			return filepath.Abs(c)
		}
	}
	return "", fmt.Errorf("no demo found (looked in %v); run from the repository root or pass --dir", candidates)
}

func playDemo(dir string, keep bool, out io.Writer) error {
	dir, err := findDemoDir(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "wavehooks-demo-")
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Fprintf(out, "\n(demo files kept in %s)\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	home, project := filepath.Join(tmp, "wave-home"), filepath.Join(tmp, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	settings, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		return err
	}
	hooksDir := filepath.Join(dir, "..", "hooks")
	settings = []byte(strings.ReplaceAll(string(settings), "$HOOKS", filepath.Clean(hooksDir)))
	if err := os.WriteFile(filepath.Join(home, "settings.json"), settings, 0o644); err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "script.json"))
	if err != nil {
		return err
	}
	var script demoScript
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(raw), "$PROJECT", project)), &script); err != nil {
		return fmt.Errorf("script.json: %w", err)
	}

	ws := host.New(host.Config{WaveHome: home}).Open(project, host.Options{})
	defer ws.Close()
	for _, d := range ws.Loaded().Full.Diagnostics() {
		return fmt.Errorf("demo settings: %s", d)
	}
	if ws.StoreErr != nil {
		return errors.Unwrap(ws.StoreErr)
	}
	p := &demoPlayer{out: out, store: ws.Store}
	for i, step := range script.Steps {
		fmt.Fprintf(out, "\n── step %d: %s\n", i+1, step.Say)
		if err := p.play(context.Background(), step); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	if p.sess == nil {
		return errors.New("the script never started a session")
	}
	fmt.Fprintf(out, "\n══ The conversation, as saved in %s\n", filepath.Base(p.sess.TranscriptPath()))
	for _, m := range p.sess.Messages() {
		for _, b := range m.Blocks {
			fmt.Fprintf(out, "%-9s %s\n", m.Role+":", renderBlock(b))
		}
	}
	fmt.Fprintf(out, "\n══ What the model sees next turn: %d API messages (error blocks left out).\n", len(p.sess.APIMessages()))
	return nil
}

type demoPlayer struct {
	out   io.Writer
	store *session.Store
	sess  *session.Session
}

func (p *demoPlayer) play(ctx context.Context, st demoStep) error {
	var err error
	if st.SessionStart != "" {
		if p.sess, err = p.store.Create(""); err != nil {
			return err
		}
		return p.show(p.sess.SessionStart(ctx, st.SessionStart))
	}
	if p.sess == nil {
		return errors.New("no session yet: start the script with a sessionStart step")
	}
	if st.Prompt != "" {
		fmt.Fprintf(p.out, "   user> %s\n", st.Prompt)
		if err := p.show(p.sess.UserPromptSubmit(ctx, st.Prompt)); err != nil {
			return err
		}
	}
	if len(st.Assistant) > 0 {
		for _, b := range st.Assistant {
			fmt.Fprintf(p.out, "   model> %s\n", renderBlock(b))
		}
		if err := p.sess.AddAssistantMessage(st.Assistant); err != nil {
			return err
		}
	}
	if st.PreToolUse != "" {
		tool, ok := findTool(st.Assistant, st.PreToolUse)
		if !ok {
			return fmt.Errorf("preToolUse %q: no such tool block in this step", st.PreToolUse)
		}
		ask := func(_ context.Context, req session.AskRequest) bool {
			fmt.Fprintf(p.out, "   ? a hook asks the user: %s → the user answers %q\n", req.Reason, st.Answer)
			return st.Answer == "allow"
		}
		call := tool.Tool()
		out, err := p.sess.PreToolUse(ctx, call.ID, call.Name, call.Input, ask)
		if err := p.show(out, err); err != nil {
			return err
		}
		fmt.Fprintf(p.out, "   → %s %s", call.Name, out.Permission)
		if out.Reason != "" {
			fmt.Fprintf(p.out, ": %s", out.Reason)
		}
		fmt.Fprintln(p.out)
		if len(st.PostToolUse) > 0 && out.Permission == "allow" {
			if err := p.show(p.sess.PostToolUse(ctx, call.ID, call.Name, out.ToolInput, st.PostToolUse)); err != nil {
				return err
			}
		}
	}
	if st.Stop {
		out, err := p.sess.Stop(ctx)
		if err := p.show(out, err); err != nil {
			return err
		}
		if out.Blocked {
			fmt.Fprintln(p.out, "   → the Stop hook blocked: the agent continues")
		} else {
			fmt.Fprintln(p.out, "   → the agent stops")
		}
	}
	if st.SessionEnd != "" {
		return p.show(p.sess.SessionEnd(ctx, st.SessionEnd))
	}
	return nil
}

// show prints the blocks an event added, marked by kind.
func (p *demoPlayer) show(out session.Outcome, err error) error {
	if err != nil {
		return err
	}
	for _, b := range out.Blocks {
		fmt.Fprintf(p.out, "   + %s\n", renderBlock(b))
	}
	return nil
}

func findTool(blocks []session.Block, id string) (session.Block, bool) {
	for _, b := range blocks {
		if b.Type == session.BlockTool && b.Tool().ID == id {
			return b, true
		}
	}
	return session.Block{}, false
}

// renderBlock is one block as a user reads it.
func renderBlock(b session.Block) string {
	switch b.Type {
	case session.BlockText:
		return oneLine(b.Content)
	case session.BlockTool:
		t := b.Tool()
		var in bytes.Buffer
		if json.Compact(&in, t.Input) != nil {
			in.Write(t.Input)
		}
		s := fmt.Sprintf("[tool %s %s]", t.Name, oneLine(in.String()))
		if t.Success != nil {
			state := "ok"
			if !*t.Success {
				state = "failed"
			}
			s += fmt.Sprintf(" → %s: %s", state, oneLine(t.Result))
		}
		return s
	case session.BlockHook:
		return fmt.Sprintf("[hook:%s] %s", b.Hook().Event, oneLine(b.Content))
	case session.BlockWarn:
		return "[warn] " + oneLine(b.Content)
	case session.BlockError:
		return "[error] " + oneLine(b.Content)
	}
	return "[" + b.Type + "]"
}

// oneLine is a block's text on one line of at most 140 characters, escaped
// (safetext): the demo's hooks are ours, but what they print is shown as any
// hook's output is.
func oneLine(s string) string {
	return safetext.Line(strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ "), 140)
}
