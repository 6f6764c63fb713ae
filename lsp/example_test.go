package lsp_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// A host, or a test, serves the LSP over any stream: here one end of an
// in-memory pipe, with go.lsp.dev/jsonrpc2 as the client on the other. The
// user's hook denies a recursive delete; the client asks whether the agent
// may run one, and shuts the server down.
func ExampleServer_Serve() {
	home, _ := os.MkdirTemp("", "wave-home-")
	project, _ := os.MkdirTemp("", "project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	_ = os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "cat >/dev/null; echo 'no recursive deletes' >&2; exit 2"}]}]}}`), 0o600)

	ctx := context.Background()
	serverEnd, clientEnd := net.Pipe()
	srv := lsp.NewServer(lsp.Options{WaveHome: home})
	exited := make(chan int, 1)
	go func() { exited <- srv.Serve(ctx, serverEnd) }()

	client := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
	client.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return reply(ctx, nil, nil) // the server's own requests (capability registration) get an empty answer
	})
	var init map[string]any
	_, _ = client.Call(ctx, "initialize", map[string]any{"rootUri": uri.File(project), "capabilities": map[string]any{}}, &init)
	_ = client.Notify(ctx, "initialized", map[string]any{})

	var start struct{ SessionID string }
	_, _ = client.Call(ctx, "wave/sessionStart", map[string]any{}, &start)
	var pre struct{ Permission, Reason string }
	_, _ = client.Call(ctx, "wave/preToolUse", map[string]any{"sessionId": start.SessionID, "toolUseId": "t1",
		"toolName": "Bash", "toolInput": map[string]any{"command": "rm -rf build"}}, &pre)
	fmt.Println(pre.Permission+":", pre.Reason)

	_, _ = client.Call(ctx, "shutdown", nil, nil)
	_ = client.Notify(ctx, "exit", nil)
	fmt.Println("exit code", <-exited)
	_ = client.Close()
	// Output:
	// deny: no recursive deletes
	// exit code 0
}
