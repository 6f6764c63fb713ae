package hooktest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A case file is one case, an array, or an object of named cases, and each
// case is named and placed where it is written.
func TestParseForms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		names      []string
		lines      []int
	}{
		{"one case, named by its file", `{"event": "Stop", "expect": {"blocked": true}}`, []string{"guard"}, []int{1}},
		{"one case with its own name", `{"name": "n", "event": "Stop", "expect": {"blocked": true}}`, []string{"n"}, []int{1}},
		{"an array", "[\n{\"event\": \"Stop\", \"expect\": {\"blocked\": true}},\n{\"name\": \"b\", \"event\": \"Stop\", \"expect\": {\"blocked\": false}}]",
			[]string{"guard#1", "b"}, []int{2, 3}},
		{"an object of cases, with comments", "{\n // first\n \"x\": {\"event\": \"Stop\", \"expect\": {\"ran\": \"a.sh\"}},\n \"y\": {\"event\": \"Stop\", \"expect\": {\"notRan\": [\"a\", \"b\"]}},\n}",
			[]string{"x", "y"}, []int{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases, err := Parse("dir/guard.test.jsonc", []byte(tc.text))
			require.NoError(t, err)
			var names []string
			var lines []int
			for _, c := range cases {
				names, lines = append(names, c.Name), append(lines, c.Line)
			}
			require.Equal(t, tc.names, names)
			require.Equal(t, tc.lines, lines)
		})
	}
}

// updatedInput compares as JSON values; null and absent are the same.
func TestJSONEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1.0 }`, true},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`null`, ``, true},
		{`{}`, ``, false},
	} {
		require.Equal(t, tc.want, jsonEqual([]byte(tc.a), []byte(tc.b)), "%s vs %s", tc.a, tc.b)
	}
}

// A case that cannot check what it seems to is refused where it is written.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"ran null", `{"event": "Stop", "expect": {"ran": null}}`, `f.test.json:1:1: case "f": context, ran and notRan take a string or an array of strings, not null`},
		{"permission", `{"event": "Stop", "expect": {"permission": "block"}}`, `f.test.json:1:44: case "f": expect.permission is "block"`},
		{"not an object", `[1]`, `f.test.json:1:2: a case must be a JSON object`},
		{"top level", `"x"`, `f.test.json:1:1: a case file is`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.test.json", []byte(tc.text))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}
