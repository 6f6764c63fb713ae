package proc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCmdExeLineKeepsTheHooksOwnQuoting checks the command line an
// exec-form hook gives cmd.exe on Windows (cmdExeLine; run for real under
// Wine by TestCmdExeGetsTheArgumentsAsWritten): arguments reach it as
// written, a quote stays a quote (Go's own quoting made it \"), and other
// programs keep Go's quoting ("").
func TestCmdExeLineKeepsTheHooksOwnQuoting(t *testing.T) {
	for _, tc := range []struct {
		program string
		args    []string
		want    string
	}{
		{`C:\windows\system32\cmd.exe`, []string{"cmd", "/c", `echo "hi there"`}, `C:\windows\system32\cmd.exe /c echo "hi there"`},
		{`C:\Windows\System32\CMD.EXE`, []string{"cmd", "/c", "echo", "a b", ""}, `C:\Windows\System32\CMD.EXE /c echo "a b" ""`},
		{`C:\Program Files\x\cmd.exe`, []string{"cmd", "/s", "/c", `""C:\my dir\x.exe" "a""`}, `"C:\Program Files\x\cmd.exe" /s /c ""C:\my dir\x.exe" "a""`},
		{"/usr/bin/cmd", []string{"cmd"}, "/usr/bin/cmd"},
		{`C:\tools\guard.exe`, []string{"guard", `"x"`}, ""},
		{`C:\tools\cmdx.exe`, []string{"cmdx", `"x"`}, ""},
	} {
		require.Equal(t, tc.want, cmdExeLine(tc.program, tc.args), "%s %q", tc.program, tc.args)
	}
}
