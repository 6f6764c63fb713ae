package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// decodeExact decodes the JSON object raw into the struct *dst, matching
// keys to the fields' json tags exactly.
//
// encoding/json matches keys without regard to case, so {"Continue": false}
// would stop the agent; Claude Code reads hook answers in JavaScript, where
// keys are case-sensitive, and ignores it (the tool runs). A hook must
// decide the same here as there, so such a key is ignored too, and named in
// the returned notes so that its author sees why. Keys that match no field
// in any case are ignored silently, as unknown fields are. prefix is the
// path of the object in the answer ("hookSpecificOutput."), for messages.
func decodeExact(raw []byte, dst any, prefix string) (notes []string, err error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s must be an object, not %s", strings.TrimSuffix(prefix, "."), te.Value)
		}
		return nil, fmt.Errorf("%s%s", prefix, jsonError(err))
	}
	rv := reflect.ValueOf(dst).Elem()
	fields := jsonFields(rv.Type())
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // notes in a stable order
	for _, key := range keys {
		if i, ok := fields[key]; ok {
			if err := json.Unmarshal(obj[key], rv.Field(i).Addr().Interface()); err != nil {
				return notes, fieldError(prefix+key, err)
			}
			continue
		}
		for name := range fields {
			if strings.EqualFold(name, key) {
				notes = append(notes, fmt.Sprintf("ignored key %q: keys are case-sensitive; did you mean %q?", prefix+key, prefix+name))
				break
			}
		}
	}
	return notes, nil
}

// jsonFields maps a struct's json tag names to field indexes.
func jsonFields(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}

// fieldError says what is wrong with one field's value in words a hook author knows.
func fieldError(field string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s must be %s, not %s", field, rawjson.KindOf(te.Type), te.Value)
	}
	return fmt.Errorf("%s: %s", field, jsonError(err))
}
