package agentexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/wavehooks/wavehooks/internal/agentfmt"
)

// MaxShimInput bounds the stdin the shim reads from its agent: far above a
// real hook input, far below what would hurt.
const MaxShimInput = 64 << 20

// Shim runs one exported wavehooks hook (command, for sh -c) inside an
// agent that speaks another shape: the agent's stdin is translated into
// Claude Code's, the hook runs with it, and its answer is translated back
// into the agent's (agentfmt.ClaudeStdin, agentfmt.AgentAnswer). Exit 2
// keeps its meaning (block, with stderr), as it has the same one in both.
// A failure of the shim itself fails closed: exit 2 with the reason, so
// that a guard that could not run never lets a call through silently.
func Shim(ctx context.Context, agent agentfmt.Agent, agentEvent, command string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "wavehooks hooks shim: %v\n", err)
		return 2
	}
	in, err := io.ReadAll(io.LimitReader(stdin, MaxShimInput+1))
	if err != nil {
		return fail(err)
	}
	if len(in) > MaxShimInput {
		return fail(fmt.Errorf("the hook input is over %d bytes", MaxShimInput))
	}
	claude, err := agentfmt.ClaudeStdin(agent, agentEvent, in)
	if err != nil {
		return fail(err)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin = bytes.NewReader(claude)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	cmd.Env = os.Environ()
	if dir := projectDir(agent); dir != "" {
		cmd.Env = append(cmd.Env, "CLAUDE_PROJECT_DIR="+dir, "WAVE_PROJECT_DIR="+dir)
	}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if exit.ExitCode() == 2 {
			return 2
		}
		_, _ = stdout.Write(out.Bytes())
		return exit.ExitCode()
	case err != nil:
		return fail(err)
	}
	_, _ = stdout.Write(agentfmt.AgentAnswer(agent, agentEvent, out.Bytes()))
	return 0
}

// projectDir is the project directory the agent gives its hooks, which the
// wrapped hook knows as CLAUDE_PROJECT_DIR.
func projectDir(agent agentfmt.Agent) string {
	switch agent {
	case agentfmt.Gemini:
		return os.Getenv("GEMINI_PROJECT_DIR")
	case agentfmt.Cursor:
		if d := os.Getenv("CURSOR_PROJECT_DIR"); d != "" {
			return d
		}
	}
	d, _ := os.Getwd()
	return d
}
