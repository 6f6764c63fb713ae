package lsp

import (
	"context"
	"maps"
	"slices"
)

// MethodTestPanic is a notification only the test binary knows: its handler
// panics, so a test can prove that no notification handler takes the server
// down, whatever bug a future one has.
const MethodTestPanic = "wave/test.panicInNotification"

// Methods are the methods of the handler table (handlers.go), sorted.
func Methods() []string { return slices.Sorted(maps.Keys(handlers)) }

// AddTestHandlers adds to the handler table the methods only the test
// binary knows. TestMain calls it once, before any server starts: the table
// is read without a lock.
func AddTestHandlers() {
	handlers[MethodTestPanic] = notification(func(*Server, context.Context, *struct{}) {
		panic("a bug in a notification handler")
	})
}
