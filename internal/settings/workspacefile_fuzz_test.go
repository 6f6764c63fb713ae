package settings_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// FuzzWorkspaceSettingsFile writes what a repository could ship as its
// .wave/settings.json — arbitrary bytes, wrapped in depth levels of arrays
// and objects (with comments between them when kind says so), padded to
// straddle the size cap — and reads it as the server does (hooks.ReadFile:
// the bounded reader, the nesting check, the parser). It must never panic
// or overflow the stack; never hand the parser more than
// MaxSettingsFileBytes (a larger file is one "larger than 4 MiB"
// diagnostic and no hooks); a file nested deeper than MaxSettingsDepth is
// one positioned nesting diagnostic and no hooks; and what is read is
// exactly what ParseFile makes of the same bytes.
//
// Seeds: testdata/fuzz/FuzzWorkspaceSettingsFile; run it with
//
//	go test -run '^$' -fuzz '^FuzzWorkspaceSettingsFile$' -fuzztime 30s ./hooks
func FuzzWorkspaceSettingsFile(f *testing.F) {
	f.Add([]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]}}`), uint16(0), uint8(0), uint8(0))
	f.Add([]byte(`1`), uint16(129), uint8(0), uint8(0))
	f.Add([]byte(`{}`), uint16(128), uint8(1), uint8(0))
	f.Add([]byte(`"]]]] // [[[["`), uint16(200), uint8(2|1), uint8(0))
	f.Add([]byte(`{"hooks": {}}`), uint16(3), uint8(4), uint8(16))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, text []byte, depth uint16, kind uint8, pad uint8) {
		depth %= 2000
		var b bytes.Buffer
		for i := range int(depth) {
			if kind&2 != 0 {
				b.WriteString("/* [{\" */ // ]]\n")
			}
			if kind&1 != 0 && i%2 == 1 {
				b.WriteString(`{"k":`)
			} else {
				b.WriteString("[")
			}
		}
		b.Write(text)
		for i := int(depth) - 1; i >= 0; i-- {
			if kind&1 != 0 && i%2 == 1 {
				b.WriteString("}")
			} else {
				b.WriteString("]")
			}
		}
		if kind&4 != 0 { // around the cap: from 128 bytes under it to 127 over
			if n := settings.MaxSettingsFileBytes - 128 + int(pad) - b.Len(); n > 0 {
				b.WriteString(strings.Repeat(" ", n))
			}
		}
		content := b.Bytes()
		path := filepath.Join(root, "settings.json")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}

		read, err := settings.ReadSettingsText(path)
		if err == nil && len(read) > settings.MaxSettingsFileBytes {
			t.Fatalf("the reader returned %d bytes, past the %d-byte cap", len(read), settings.MaxSettingsFileBytes)
		}
		file := settings.ReadFile(path, settings.SourceProject, root)
		switch {
		case len(content) > settings.MaxSettingsFileBytes:
			if err == nil {
				t.Fatalf("a %d-byte file was read", len(content))
			}
			only(t, file, settings.CodeUnreadable, "larger than 4 MiB")
		case depth > settings.MaxSettingsDepth:
			only(t, file, settings.CodeSyntax, "nest deeper than 128 levels")
			if d := file.Diagnostics[0]; d.Range.Start == d.Range.End && len(content) > 0 {
				t.Fatalf("the nesting diagnostic points nowhere: %+v", d)
			}
		default:
			if err != nil {
				t.Fatalf("a %d-byte regular file was refused: %v", len(content), err)
			}
			if want := settings.ParseFile(path, settings.SourceProject, content, root); !reflect.DeepEqual(want, file) {
				t.Fatalf("ReadFile and ParseFile differ on the same bytes:\n%+v\n%+v", file, want)
			}
		}
		checkRanges(t, content, file.Diagnostics)
	})
}

// only checks that a file has no hooks and exactly one diagnostic, with
// this code and words.
func only(t *testing.T, f settings.File, code, says string) {
	t.Helper()
	if len(f.Hooks) != 0 || len(f.Diagnostics) != 1 || f.Diagnostics[0].Code != code || !strings.Contains(f.Diagnostics[0].Message, says) {
		t.Fatalf("want no hooks and one %s diagnostic saying %q, got %d hooks and %+v", code, says, len(f.Hooks), f.Diagnostics)
	}
}
