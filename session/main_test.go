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
	if os.Getenv(resumeRSSEnv) != "" {
		resumeRSSChild() // a child process of BenchmarkSessionResumeRSS; never returns
	}
	goleak.VerifyTestMain(m)
}
