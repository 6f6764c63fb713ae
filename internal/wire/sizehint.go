package wire

import (
	"encoding/json"
	"reflect"

	"github.com/wavehooks/wavehooks/session"
)

// SizeHint estimates how many bytes the JSON encoding of v takes, from the
// lengths of its strings and raw JSON plus a little per value, without
// encoding it. A large result or notification (a session with a 100 MB tool
// input in it) is then encoded into a buffer of about the right size,
// instead of one that append regrows by a quarter at a time, copying it
// each time and holding the old and the new copy together
// (docs/performance.md, "Large frames").
//
// Walking v costs a few nanoseconds per field; an estimate that falls
// short only means the buffer grows.
func SizeHint(v any) int {
	return estimate(reflect.ValueOf(v), 0)
}

// perValue is what a key, quotes and separators add to each value, roughly.
const perValue = 16

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// blockSize estimates a block's encoding: a block keeps its tool call's
// fields out of reflection's sight (session.Block.Tool), and a tool's input
// or result is most of a large message.
func blockSize(b session.Block) int {
	t, h := b.Tool(), b.Hook()
	return 4*perValue + len(b.Type) + len(b.Content) + len(t.ID) + len(t.Name) + len(t.Input) +
		len(t.Result) + len(t.Error) + len(h.Event) + estimate(reflect.ValueOf(h.Metadata), 1)
}

func estimate(v reflect.Value, depth int) int {
	if !v.IsValid() || depth > 64 {
		return perValue
	}
	// TypeAssert does not box the block as Interface would (an allocation per
	// block of every result and notification); estimate only reaches values
	// through exported fields, which TypeAssert may read.
	if b, ok := reflect.TypeAssert[session.Block](v); ok {
		return blockSize(b)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return perValue
		}
		return estimate(v.Elem(), depth+1)
	case reflect.String:
		return len(v.String()) + perValue
	case reflect.Slice:
		if v.Type() == rawMessageType || v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() + perValue
		}
		fallthrough
	case reflect.Array:
		n := perValue
		for i := range v.Len() {
			n += estimate(v.Index(i), depth+1)
		}
		return n
	case reflect.Map:
		n := perValue
		for it := v.MapRange(); it.Next(); {
			n += estimate(it.Key(), depth+1) + estimate(it.Value(), depth+1)
		}
		return n
	case reflect.Struct:
		n := perValue
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += estimate(v.Field(i), depth+1)
			}
		}
		return n
	}
	return perValue
}
