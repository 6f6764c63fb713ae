package transcript

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalidID: a session id from a client is not [A-Za-z0-9_-]{1,128};
// ids become file names, so nothing else is accepted. The server maps it to
// a JSON-RPC error (package session re-exports it).
var ErrInvalidID = errors.New("invalid session id")

const maxIDLen = 128

// ValidateID checks a session id before it can become part of a path.
func ValidateID(id string) error {
	if len(id) == 0 || len(id) > maxIDLen {
		return fmt.Errorf("%w: %q must be 1 to %d characters", ErrInvalidID, id, maxIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("%w: %q may only hold letters, digits, _ and -", ErrInvalidID, id)
		}
	}
	return nil
}

// NewID returns a random UUID (version 4), the id a session gets when the
// client names none; it is what Claude Code's session ids look like.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

const shortIDLen = 8

// maxFallback bounds the "<id>.<n>" names tried when every suffix of an id is
// taken by other sessions.
const maxFallback = 16

// NameCandidates lists, in order, the file name stems a session may have:
// the last 8 characters of its id, then longer suffixes up to the whole id,
// then "<id>.2", "<id>.3", … (a dot never occurs in an id, so these cannot
// collide with another id's suffix).
func NameCandidates(id string) []string {
	var out []string
	for n := min(shortIDLen, len(id)); n <= len(id); n++ {
		out = append(out, id[len(id)-n:])
	}
	for k := 2; k <= maxFallback; k++ {
		out = append(out, id+"."+strconv.Itoa(k))
	}
	return out
}
