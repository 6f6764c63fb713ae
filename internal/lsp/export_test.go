package lsp

import "context"

// MethodTestPanic is a notification only the test binary knows: its handler
// panics, so a test can prove that no notification handler takes the server
// down, whatever bug a future one has.
const MethodTestPanic = "wave/test.panicInNotification"

func init() {
	register(MethodTestPanic, notification(func(*Server, context.Context, *struct{}) {
		panic("a bug in a notification handler")
	}))
}
