package lsp_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/wavehooks/wavehooks/internal/testjson"
)

// BenchmarkLargeFrame sends a 10 MB tool input through wave/preToolUse with
// one `cat >/dev/null` hook, and the same frame to wave/listPermissions,
// which ignores its params, in this process: the benchmark to profile the
// request path with (-cpuprofile, -memprofile; docs/performance.md, "Large
// frames"). Its B/op include the client's; the figures against the frame's
// size (peak RSS, MB per CPU-second) come from the real binary, in
// cmd/wavehooks's BenchmarkServeLargeFrame.
//
//	go test -run '^$' -bench LargeFrame -benchtime 3x -cpuprofile cpu.out ./lsp
func BenchmarkLargeFrame(b *testing.B) {
	c := startPipeServer(b, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"cat >/dev/null"}]}]}}`)
	sid := startedSession(b, c)
	for _, shape := range []string{"string", "members"} {
		input := testjson.LargeObject(shape, 10<<20)
		params := []byte(fmt.Sprintf(`{"sessionId":%q,"toolUseId":"t1","toolName":"Write","toolInput":%s}`, sid, input))
		b.Run("preToolUse/"+shape, func(b *testing.B) {
			b.SetBytes(int64(len(params)))
			for i := 0; i < b.N; i++ {
				resp := roundTrip(b, c, "wave/preToolUse", params).raw
				if !bytes.Contains(resp[:min(len(resp), 200)], []byte(`"permission":"allow"`)) && !bytes.Contains(resp, []byte(`"permission":"allow"`)) {
					b.Fatalf("response: %.300s", resp)
				}
			}
		})
		b.Run("listPermissions/"+shape, func(b *testing.B) {
			b.SetBytes(int64(len(params)))
			for i := 0; i < b.N; i++ {
				roundTrip(b, c, "wave/listPermissions", params)
			}
		})
	}
}
