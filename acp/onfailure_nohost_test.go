package acp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOnFailureBlockWithoutAgentHost: the proxy has no agent host to run
// an mcp_tool guard; with onFailure "block" that failure denies the tool
// call at the permission request (#35 item 5), the file is not written,
// and the editor is told why. With the default the call goes ahead.
func TestOnFailureBlockWithoutAgentHost(t *testing.T) {
	for _, c := range []struct {
		onFailure string
		written   bool
	}{{"block", false}, {"continue", true}} {
		t.Run(c.onFailure, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "out.txt")
			r := startRig(t, rigOptions{
				settings: string(mustRaw(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Write|Edit",
					"hooks": []any{map[string]any{"type": "mcp_tool", "server": "scanner", "tool": "scan", "onFailure": c.onFailure}}}}}})),
				script: script(`[` + writePermission(target) + `,{"stop":"end_turn"}]`),
			})
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "write a file")))
			answers := r.agentResponses()
			require.NotEmpty(t, answers)
			_, err := os.Stat(target)
			if !c.written {
				require.Empty(t, r.noted(methodRequestPermission), "the editor never saw the permission request")
				require.Equal(t, `{"outcome":{"optionId":"cancel","outcome":"selected"}}`, answers[0], "reject_once")
				require.Contains(t, r.chunkTexts(), "rejected")
				require.True(t, os.IsNotExist(err), "the guard that could not run kept the file from being written")
				calls := r.updates("tool_call")
				require.Len(t, calls, 1)
				require.Contains(t, mustJSON(calls[0]["content"]),
					"blocked because the hook failed (onFailure: block): hook `mcp_tool scanner/scan`: it could not run")
				return
			}
			require.Contains(t, r.chunkTexts(), "written")
		})
	}
}
