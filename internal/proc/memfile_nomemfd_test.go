//go:build wavehooks_nomemfd

package proc

// nomemfd: built with -tags wavehooks_nomemfd (memfile_other.go on Linux).
const nomemfd = true
