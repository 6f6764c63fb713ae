package doctor

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
)

// probeServe starts `server serve` as the wavehooks extensions do, with the
// probe hook in a temporary wave home, and sends what an extension sends
// for one tool call: initialize, wave/sessionStart, wave/preToolUse (a Read
// of the probe's file), then shutdown and exit.
func probeServe(ctx context.Context, o Options, server string) (Status, string) {
	d, _, err := newProbeWaveHome() // the extension names the wave home in initialize (extensionTalk)
	if err != nil {
		return NotProbed, err.Error()
	}
	defer d.close()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.Command(server, "serve")
	cmd.Dir = d.project
	cmd.Env = d.env(o)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	// The server's own requests (progress, configuration) are answered null.
	c := &rpcClient{lspFraming: true, peer: "the server",
		reply: func(m rpcMessage) map[string]any { return map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil} }}
	ran, err := talkTo(cmd, c, func(c *rpcClient) error { return extensionTalk(ctx, c, d) })
	if err != nil {
		return NotProbed, "cannot start " + server + " serve: " + err.Error()
	}
	return d.verdict(tilde(o.Home, server)+" serve, sent wave/preToolUse for a Read as an extension does", ran, stderr.Bytes())
}

// extensionTalk is what an extension sends for one tool call: initialize,
// wave/sessionStart, wave/preToolUse of a Read of the probe's file, then
// shutdown and exit.
func extensionTalk(ctx context.Context, c *rpcClient, d *probeDir) error {
	root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(d.project)}).String()
	if _, err := c.call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": filepath.Join(d.root, "wave"), "trustWorkspaceHooks": true}}); err != nil {
		return err
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		return err
	}
	const session = "wavehooks-doctor-probe"
	if _, err := c.call(ctx, "wave/sessionStart", map[string]any{"sessionId": session, "source": "startup"}); err != nil {
		return err
	}
	if _, err := c.call(ctx, "wave/preToolUse", map[string]any{"sessionId": session, "toolUseId": "toolu_wavehooks_doctor",
		"toolName": "Read", "toolInput": map[string]any{"file_path": d.target}}); err != nil {
		return err
	}
	if _, err := c.call(ctx, "shutdown", nil); err != nil {
		return err
	}
	return c.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
}
