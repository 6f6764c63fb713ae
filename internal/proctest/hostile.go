package proctest

import (
	"os"
	"path/filepath"
	"strings"
)

// Hostile is a file a repository can plant where the program reads one of
// its files (a settings file, a session file): each used to crash, hang or
// exhaust the program (issue #23). Plant puts it at path; Says is what the
// diagnostic about it must contain.
type Hostile struct {
	Name  string
	Plant func(path string) error
	Says  string
}

// HostileFiles are the plants the bounded reader (internal/safefile) and the
// nesting check must each refuse with a diagnostic.
var HostileFiles = []Hostile{
	{"nested 1,500,000 deep", func(p string) error {
		return write(p, strings.Repeat("[", 1_500_000)+strings.Repeat("]", 1_500_000))
	}, "nest deeper than 128 levels"},
	{"a symlink to /dev/zero", func(p string) error { return symlink("/dev/zero", p) }, "not a regular file"},
	{"a symlink to /dev/stdin", func(p string) error { return symlink("/dev/stdin", p) }, "not a regular file"},
	{"a FIFO", func(p string) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return Mkfifo(p)
	}, "a FIFO"},
	{"a 5 MiB file", func(p string) error {
		return write(p, `{"padding": "`+strings.Repeat("x", 5<<20)+`"}`)
	}, "larger than 4 MiB"},
}

func write(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

func symlink(target, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.Symlink(target, path)
}
