//go:build !windows

package transcript

// renamesOverOpenFiles is true outside Windows: a rename over an open file
// succeeds and its readers keep reading the old version, whole — what
// replaceByCopy relies on (see open_windows.go for Windows).
const renamesOverOpenFiles = true
