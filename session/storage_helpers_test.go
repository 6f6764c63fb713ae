package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"unsafe"
)

// What these tests know of the file format, which lives in package
// transcript: the constants are written out again here, so that a change
// of the format shows as a failing test of this package too, not only of
// transcript's.

var (
	jsonSep  = []byte(",\n")
	jsonFoot = []byte("\n]}}\n")
)

// shortIDLen is the length of the id suffix a session file is named after
// (transcript.NameCandidates).
const shortIDLen = 8

// The sizes of transcript's arena (arena.go), which TestResumeKeepsEveryMessage
// goes past: a string longer than arenaString keeps its own allocation, a
// message of more than arenaBlocks/4 blocks its own list.
const (
	arenaString = 2 << 10
	arenaBlocks = 64 << 10 / int(unsafe.Sizeof(Block{}))
)

// encodeJSON marshals v on one line without HTML escaping, as the files hold it.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// journalPath is the journal beside a session file.
func journalPath(path string) string { return path + ".journal" }

// journalRecord is a journal entry as transcript writes it (layout.go):
// "wavehooks-journal-1 start size len crc\n" then the bytes.
func journalRecord(start, newSize int64, data []byte) []byte {
	head := fmt.Sprintf("wavehooks-journal-1 %d %d %d %d\n", start, newSize, len(data), crc32.ChecksumIEEE(data))
	return append([]byte(head), data...)
}

// jsonlTorn reports whether a jsonl transcript has a line that is not an
// API message, or a tail without its newline.
func jsonlTorn(data []byte) bool {
	rest := data
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line := rest[:i]
		rest = rest[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m APIMessage
		if err := json.Unmarshal(line, &m); err != nil || m.Role == "" {
			return true
		}
	}
	return len(bytes.TrimSpace(rest)) > 0
}
