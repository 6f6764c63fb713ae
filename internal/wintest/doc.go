// Package wintest holds the test that runs the real Windows server under
// Wine (make test-wine, scripts/wine/run.sh): it builds wavehooks.exe and an
// exec-form hook (./guard) for windows/amd64 and drives `wavehooks.exe
// serve` over stdio from Linux, as a Windows editor would. It has no code
// of its own; outside make test-wine its test says why it skips.
package wintest
