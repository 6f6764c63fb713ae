// Command guard is the exec-form PreToolUse hook of the Windows end-to-end
// test under Wine (internal/wintest): a real program, built for Windows,
// because Wine's powershell.exe is a stub that exits 0 and no POSIX shell
// is installed there, so a shell-form hook's success would prove nothing.
//
// It appends the stdin it was given, as one line, to the file named by its
// first argument (the test reads what the hook saw), and denies a Bash
// command containing "rm -rf" with a reason that quotes the command, so a
// denial can only come from this program having read its input.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "guard:", err)
		os.Exit(1) // a non-blocking error: the test then sees no denial and fails
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: guard SEEN-FILE")
	}
	in, err := io.ReadAll(stdin)
	if err != nil {
		return err
	}
	var event struct {
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal(in, &event); err != nil {
		return fmt.Errorf("stdin is not the event's JSON: %w", err)
	}
	seen, err := os.OpenFile(args[0], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = seen.Write(append(bytes.TrimSpace(in), '\n'))
	if cerr := seen.Close(); err == nil {
		err = cerr
	}
	if err != nil || !strings.Contains(event.ToolInput.Command, "rm -rf") {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       "deny",
		"permissionDecisionReason": "guard.exe refused: " + event.ToolInput.Command,
	}})
}
