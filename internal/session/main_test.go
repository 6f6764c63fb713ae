package session

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashHelperEnv) != "" {
		crashHelper() // a child process of TestCrashKeepsAcknowledgedMessages; never returns
	}
	goleak.VerifyTestMain(m)
}
