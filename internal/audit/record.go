package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Record is one line of the audit log: one decision. Its fields are written
// in this order, and the line's bytes are what the chain and the MAC cover.
type Record struct {
	// Seq numbers the records of the whole log from 1, across rotations.
	Seq uint64 `json:"seq"`
	// Prev is the SHA-256 (hex) of the previous record's line, "" for the first.
	Prev string    `json:"prev"`
	Time time.Time `json:"time"`
	// Kind is KindRun (what an event's hooks decided) or KindAnswer (the
	// answer to an ask, and who gave it).
	Kind Kind `json:"kind"`
	// Host is the process that decided: serve, acp or cli.
	Host Host `json:"host"`
	// Writer tells apart the processes appending to one log.
	Writer  string `json:"writer"`
	Session string `json:"session,omitempty"`
	Event   string `json:"event,omitempty"`
	// Tool is what the event's matchers were compared with: the tool name
	// of a tool event, the source of SessionStart, …
	Tool  string `json:"tool,omitempty"`
	Hooks []Hook `json:"hooks,omitempty"`
	// InputSHA256 is the SHA-256 (hex) of the whole JSON the hooks were given
	// (a run), or of the tool input the user was asked about (an answer).
	InputSHA256 string `json:"inputSha256,omitempty"`
	// Answer is what was decided: allow, deny, ask, defer, block, stop or
	// none for a run; allow, deny or cancelled for an answer.
	Answer string `json:"answer"`
	// By is who decided: "hooks" for a run; for an answer the user (and
	// through which channel), a timeout, or the proxy failing closed.
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
	// DurationNs is how long the decision took: the longest of the hooks
	// that ran (they run in parallel), or how long the ask waited.
	DurationNs int64 `json:"durationNs"`
	// Managed says a hook from the managed (policy) settings ran.
	Managed bool `json:"managed,omitempty"`
	// Lost counts the records this writer failed to append before this one
	// (a full disk, a lock it could not take): a gap it owns up to.
	Lost uint64 `json:"lost,omitempty"`
	// MAC is the HMAC-SHA256 (hex) of the line without it, under the log's key.
	MAC string `json:"mac,omitempty"`
}

// Hook is one hook that matched the event, as the audit log keeps it.
type Hook struct {
	Command string `json:"command"`
	Source  string `json:"source"`
	Managed bool   `json:"managed,omitempty"`
	Ran     bool   `json:"ran"`
	Skipped string `json:"skipped,omitempty"`
	Exit    int    `json:"exit"`
	// DurationNs is how long the hook ran.
	DurationNs int64 `json:"durationNs"`
	TimedOut   bool  `json:"timedOut,omitempty"`
}

// Kind is what a record records.
type Kind string

// The kinds of record.
const (
	KindRun    Kind = "run"
	KindAnswer Kind = "answer"
)

// Host is the kind of process that wrote a record.
type Host string

// The hosts.
const (
	HostServe Host = "serve"
	HostACP   Host = "acp"
	HostCLI   Host = "cli"
)

// maxText bounds each text a record carries (a command, a reason): a record
// is a line of metadata, and the input itself is kept as its hash.
const maxText = 1 << 10

// clipText cuts s to maxText bytes, at the start of a character.
func clipText(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// macKey is what comes before a line's MAC, its last field: a sealed line
// ends `,"mac":"<64 hex digits>"}`.
const macKey = `,"mac":"`

// seal encodes r (its MAC unset) as a line without its newline, with the MAC
// under key appended as the last field when key is not nil.
func seal(r Record, key []byte) ([]byte, error) {
	r.MAC = ""
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return body, nil
	}
	m := mac(key, body)
	line := make([]byte, 0, len(body)+len(macKey)+len(m)+2)
	line = append(line, body[:len(body)-1]...)
	line = append(line, macKey...)
	line = append(line, m...)
	return append(line, '"', '}'), nil
}

// mac is the HMAC-SHA256 in hex of a record's line without its MAC.
func mac(key, body []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// lineHash is the SHA-256 in hex of a line (without its newline): the next
// record's Prev.
func lineHash(line []byte) string {
	s := sha256.Sum256(line)
	return hex.EncodeToString(s[:])
}

// errNoMAC is a line that carries no MAC where the key says one must be.
var errNoMAC = errors.New("it carries no MAC")

// parse reads a line as a record. It fails for anything that is not a whole
// record: a torn line, or bytes that were never one.
func parse(line []byte) (Record, error) {
	var r Record
	// Unknown fields are allowed: a newer wavehooks may add some, and the
	// hash and the MAC are over the line's bytes, whatever they hold.
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&r); err != nil {
		return Record{}, err
	}
	if dec.More() {
		return Record{}, errors.New("more than one JSON value")
	}
	if r.Seq == 0 || r.Kind == "" {
		return Record{}, errors.New("not an audit record")
	}
	return r, nil
}

// checkMAC reports whether line's MAC is the one key gives its bytes.
func checkMAC(line []byte, r Record, key []byte) error {
	if r.MAC == "" {
		return errNoMAC
	}
	suffix := macKey + r.MAC + `"}`
	if len(r.MAC) != 2*sha256.Size || !bytes.HasSuffix(line, []byte(suffix)) {
		return fmt.Errorf("its MAC is malformed")
	}
	body := append(append([]byte{}, line[:len(line)-len(suffix)]...), '}')
	if !hmac.Equal([]byte(mac(key, body)), []byte(r.MAC)) {
		return errors.New("its MAC does not match its bytes")
	}
	return nil
}
