package flow_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/flow"
)

// A tool response becomes the tool block's result text and success.
func TestDescribeResponse(t *testing.T) {
	cases := []struct {
		raw     string
		result  string
		success bool
	}{
		{``, "", true},
		{`"plain"`, "plain", true},
		{`{"content":"c","output":"o"}`, "c", true},
		{`{"output":"o","success":false}`, "o", false},
		{`{"stdout":"x","exitCode":1}`, `{"stdout":"x","exitCode":1}`, true},
		{`{"content":[1,2],"success":true}`, `{"content":[1,2],"success":true}`, true},
		{`[1,2]`, `[1,2]`, true},
		{`42`, `42`, true},
	}
	for _, tc := range cases {
		r, ok := flow.DescribeResponse(json.RawMessage(tc.raw))
		require.Equal(t, tc.result, r, tc.raw)
		require.Equal(t, tc.success, ok, tc.raw)
	}
}
