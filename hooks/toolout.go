package hooks

import (
	"bytes"
	"encoding/json"
	"github.com/wavehooks/wavehooks/internal/event"
	"strings"
)

// readUpdatedOutput takes a PostToolUse hook's replacement of the tool's
// output: updatedToolOutput for any tool, updatedMCPToolOutput for MCP tools
// only. Other events have no tool output to replace; there the fields are
// ignored, as Claude Code ignores them. The value is any JSON: the tool's
// output shape is the agent host's to check.
func readUpdatedOutput(v *verdict, ev event.Event, hs *hookSpecificJSON) {
	if ev != event.PostToolUse {
		return
	}
	v.updatedOutput, v.updatedMCPOutput = jsonValue(hs.UpdatedToolOutput), jsonValue(hs.UpdatedMCPToolOutput)
}

// jsonValue is raw compacted, or nil when it is absent or null.
func jsonValue(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return compactJSON(raw)
}

// updatedToolOutput sets res.UpdatedToolOutput from the verdicts, which
// are in configuration order: the last hook that replaced the output wins,
// and a conflict adds a warning, as for updatedInput. A hook's
// updatedToolOutput beats its own updatedMCPToolOutput, which only counts
// for MCP tools (mcp__server__tool).
func updatedToolOutput(res *Result, vs []verdict, toolName string) {
	var outs []json.RawMessage
	for i := range vs {
		out := vs[i].updatedOutput
		if out == nil && strings.HasPrefix(toolName, "mcp__") {
			out = vs[i].updatedMCPOutput
		}
		if out != nil {
			outs = append(outs, out)
		}
	}
	if len(outs) == 0 {
		return
	}
	res.UpdatedToolOutput = outs[len(outs)-1]
	for _, o := range outs[:len(outs)-1] {
		if !bytes.Equal(o, res.UpdatedToolOutput) {
			res.Warnings = append(res.Warnings,
				"several hooks replaced the tool's output differently; the last one in configuration order was used")
			break
		}
	}
}
