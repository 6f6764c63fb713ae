package session

import (
	"bytes"
	"slices"
	"sort"
)

// What a save writes, and how it stays small in a long session.
//
// A session file is a list of units — a json file's messages, a jsonl file's
// lines — and every unit is an opening, parts joined by commas, and a
// closing:
//
//	json:  {"role":"assistant","blocks":[ block , block ]}
//	jsonl: {"role":"assistant","content":[ api block , api block ]}
//
// (a jsonl line whose content is a single text is {"role":…,"content":"…"}
// instead, as the model's API writes it). The encoders remember every part
// they wrote, so a save encodes only the blocks that changed since the last
// one (conversation.touched, and blocks appended to or cut from a message)
// and writes from the first part that differs: a message with thousands of
// tool blocks is neither encoded again nor rewritten whole when one of them
// gets its result. Parts of a session loaded from its file are not kept (that
// would hold the file in memory a second time): the first change to such a
// unit encodes and writes it whole once.

// unitWrite is what a save writes: the units from index from on, the first
// after its first keep bytes (which stay as they are on disk), each as
// pieces to concatenate.
type unitWrite struct {
	from  int
	keep  int64
	units [][][]byte
}

var (
	comma         = []byte(",")
	listClose     = []byte("]}")
	textPartStart = []byte(`{"type":"text","text":`)
)

// unitOpen is a unit's opening up to its list of parts: {"role":R,"<key>":[
func unitOpen(role, key string) []byte {
	b := append([]byte(`{"role":`), appendJSONString(nil, role)...)
	b = append(b, `,"`...)
	b = append(b, key...)
	return append(b, `":[`...)
}

// Openings of the common roles, made once.
var (
	jsonOpens  = map[string][]byte{RoleUser: unitOpen(RoleUser, "blocks"), RoleAssistant: unitOpen(RoleAssistant, "blocks")}
	jsonlOpens = map[string][]byte{RoleUser: unitOpen(RoleUser, "content"), RoleAssistant: unitOpen(RoleAssistant, "content")}
)

func openOf(opens map[string][]byte, role, key string) []byte {
	if b, ok := opens[role]; ok {
		return b
	}
	return unitOpen(role, key)
}

// listPieces is a unit in list form from part p on, and how many of its
// bytes come before that (keep); from part 0 it is the whole unit.
func listPieces(open []byte, parts [][]byte, p int) (keep int64, pieces [][]byte) {
	if p <= 0 {
		pieces = make([][]byte, 0, 2*len(parts)+1)
		pieces = append(pieces, open)
		for k, part := range parts {
			if k > 0 {
				pieces = append(pieces, comma)
			}
			pieces = append(pieces, part)
		}
		return 0, append(pieces, listClose)
	}
	keep = int64(len(open) + p - 1)
	for _, part := range parts[:p] {
		keep += int64(len(part))
	}
	pieces = make([][]byte, 0, 2*(len(parts)-p)+1)
	for _, part := range parts[p:] {
		pieces = append(pieces, comma, part)
	}
	return keep, append(pieces, listClose)
}

// joinPieces is one unit's bytes, for a whole-file rewrite.
func joinPieces(pieces [][]byte) []byte {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range pieces {
		b = append(b, p...)
	}
	return b
}

// samePart reports whether two encodings are equal, cheaply when they are
// the same bytes (a part the encoder kept).
func samePart(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}

// refreshParts brings a message's per-block parts up to date: the touched
// blocks are encoded again, parts of blocks cut from the message dropped and
// those of appended blocks added. It returns the parts and the first index
// whose encoding changed (-1 when none did).
func refreshParts[P any](parts []P, blocks []Block, seq uint64, touched []blockRef,
	encode func(*Block) (P, error), same func(a, b P) bool) ([]P, int, error) {
	first := -1
	lower := func(i int) {
		if first < 0 || i < first {
			first = i
		}
	}
	n := min(len(parts), len(blocks))
	for _, t := range touched {
		if t.seq != seq || t.i >= n {
			continue
		}
		enc, err := encode(&blocks[t.i])
		if err != nil {
			return nil, 0, err
		}
		if !same(enc, parts[t.i]) {
			parts[t.i] = enc
			lower(t.i)
		}
	}
	if len(parts) != len(blocks) {
		lower(n)
		clear(parts[n:])
		parts = parts[:n]
		for i := n; i < len(blocks); i++ {
			enc, err := encode(&blocks[i])
			if err != nil {
				return nil, 0, err
			}
			parts = append(parts, enc)
		}
	}
	return parts, first, nil
}

// encodeBlock is a block as the json file holds it (appendBlock: encoding/json
// would call Block.MarshalJSON and then check and copy what it returned).
func encodeBlock(b *Block) ([]byte, error) { return appendBlock(nil, b) }

// jsonEncoder writes a json session: one unit per message, one part per block.
type jsonEncoder struct {
	// msgs are the messages from index base on; those before base were
	// loaded from the file and are not known (a long session resumed holds
	// nothing here for them).
	base int
	msgs []jsonMsg
}

// jsonMsg is a message as it is on disk.
type jsonMsg struct {
	seq uint64
	// parts are the blocks' encodings, nil when not known (loaded from the file).
	parts [][]byte
}

// loaded records messages read from the file: their bytes are not kept.
func (e *jsonEncoder) loaded(msgs []Message) {
	e.base, e.msgs = len(msgs), nil
}

// update encodes what changed since the last save and says what to write;
// ok is false when the file already holds the conversation.
func (e *jsonEncoder) update(c *conversation, from int) (w unitWrite, ok bool, err error) {
	d := min(from, len(c.msgs), e.base+len(e.msgs))
	if d < e.base {
		// A change among the loaded messages: track them from there on.
		e.msgs = append(make([]jsonMsg, e.base-d, e.base-d+len(e.msgs)), e.msgs...)
		e.base = d
	}
	w, ok, err = e.updateFrom(c, d-e.base)
	w.from += e.base
	return w, ok, err
}

// updateFrom is update on c.msgs[e.base:], from index d of it.
func (e *jsonEncoder) updateFrom(whole *conversation, d int) (w unitWrite, ok bool, err error) {
	c := &conversation{msgs: whole.msgs[e.base:], touched: whole.touched}
	diffU, diffP := -1, 0
	for i := d; i < len(c.msgs); i++ {
		m := &c.msgs[i]
		if i < len(e.msgs) && e.msgs[i].parts != nil && e.msgs[i].seq == m.seq {
			parts, p, err := refreshParts(e.msgs[i].parts, m.Blocks, m.seq, c.touched, encodeBlock, samePart)
			if err != nil {
				return w, false, err
			}
			e.msgs[i].parts = parts
			if p >= 0 && diffU < 0 {
				diffU, diffP = i, p
			}
			continue
		}
		parts := make([][]byte, 0, len(m.Blocks))
		for k := range m.Blocks {
			enc, err := encodeBlock(&m.Blocks[k])
			if err != nil {
				return w, false, err
			}
			parts = append(parts, enc)
		}
		jm := jsonMsg{seq: m.seq, parts: parts}
		if i < len(e.msgs) {
			e.msgs[i] = jm
		} else {
			e.msgs = append(e.msgs, jm)
		}
		if diffU < 0 {
			diffU, diffP = i, 0
		}
	}
	if len(e.msgs) > len(c.msgs) {
		clear(e.msgs[len(c.msgs):])
		e.msgs = e.msgs[:len(c.msgs)]
		if diffU < 0 {
			diffU, diffP = len(c.msgs), 0
		}
	}
	if diffU < 0 {
		return w, false, nil
	}
	w.from = diffU
	for i := diffU; i < len(c.msgs); i++ {
		p := 0
		if i == diffU {
			p = diffP
		}
		keep, pieces := listPieces(openOf(jsonOpens, c.msgs[i].Role, "blocks"), e.msgs[i].parts, p)
		if i == diffU {
			w.keep = keep
		}
		w.units = append(w.units, pieces)
	}
	return w, true, nil
}

// jsonlEncoder writes a jsonl session: one unit per line, one part per API
// block. A line gathers the content of consecutive messages of one role (the
// model's API wants roles to alternate), so where a message's content goes
// depends on the messages before it; the encoder remembers, for every
// message, how the lines stood before it, and folds the messages from the
// first changed one on again, reusing every block's encoding that did not
// change.
type jsonlEncoder struct {
	lines []jsonlLine
	msgs  []jsonlMsg
}

// jsonlLine is a line as it is on disk.
type jsonlLine struct {
	role string
	// parts are its API blocks' encodings, nil when not known (loaded).
	parts [][]byte
	// first is the message whose content starts the line; clean says the
	// line starts with that message's first content, so folding again from
	// that message reproduces it.
	first int
	clean bool
}

// jsonlMsg is what a message contributes, and where.
type jsonlMsg struct {
	seq uint64
	// enc holds each block's API encodings; nil when not known.
	enc []ownRes
	// at is how the lines stood before the message: their number, and the
	// parts of the last one.
	at foldAt
}

// ownRes is what one block adds to its message's line (own) and to the user
// line after it (res: a tool result); nil: nothing.
type ownRes struct{ own, res []byte }

type foldAt struct{ lines, parts int }

// apiBlockParts is what one block contributes to the API form (see apiContent).
func apiBlockParts(b *Block) (own, res []byte, err error) {
	var one Message
	one.Blocks = []Block{*b}
	o, r := apiContent(&one)
	if len(o) > 0 {
		if own, err = appendAPIBlock(nil, &o[0]); err != nil {
			return nil, nil, err
		}
	}
	if len(r) > 0 {
		if res, err = appendAPIBlock(nil, &r[0]); err != nil {
			return nil, nil, err
		}
	}
	return own, res, nil
}

func encodeOwnRes(b *Block) (ownRes, error) {
	o, r, err := apiBlockParts(b)
	return ownRes{o, r}, err
}

func sameOwnRes(a, b ownRes) bool {
	return (a.own == nil) == (b.own == nil) && (a.res == nil) == (b.res == nil) && samePart(a.own, b.own) && samePart(a.res, b.res)
}

// textForm reports whether a line is written as {"role":…,"content":"…"}.
func textForm(parts [][]byte) bool {
	return len(parts) == 1 && bytes.HasPrefix(parts[0], textPartStart)
}

// linePieces is a line from part p on (see listPieces); a line in text form
// is always written whole.
func linePieces(l *jsonlLine, p int) (keep int64, pieces [][]byte) {
	if textForm(l.parts) {
		t := l.parts[0]
		b := append([]byte(nil), openOf(jsonlOpens, l.role, "content")...)
		b = append(b[:len(b)-1], t[len(textPartStart):len(t)-1]...)
		return 0, [][]byte{append(b, '}')}
	}
	return listPieces(openOf(jsonlOpens, l.role, "content"), l.parts, p)
}

// endAt is how the lines stand after every message.
func (e *jsonlEncoder) endAt() foldAt {
	if n := len(e.lines); n > 0 {
		return foldAt{n, len(e.lines[n-1].parts)}
	}
	return foldAt{}
}

// lineDiff finds the first place, in file order, where the lines folded
// again differ from the lines on disk, as the fold makes them.
type lineDiff struct {
	old   []jsonlLine // the lines on disk from index base on
	base  int
	found bool
	line  int
	part  int
}

func (d *lineDiff) at(line, part int) {
	if !d.found {
		d.found, d.line, d.part = true, line, part
	}
}

func (d *lineDiff) oldLine(i int) *jsonlLine {
	if i >= d.base && i-d.base < len(d.old) {
		return &d.old[i-d.base]
	}
	return nil
}

// add checks part k of line i before it is set.
func (d *lineDiff) add(i, k int, role string, part []byte) {
	if d.found {
		return
	}
	o := d.oldLine(i)
	switch {
	case o == nil || o.parts == nil || o.role != role:
		d.at(i, 0)
	case k >= len(o.parts) || !samePart(o.parts[k], part):
		d.at(i, k)
	}
}

// end checks that line i, now complete with n parts, did not have more.
func (d *lineDiff) end(i, n int) {
	if o := d.oldLine(i); !d.found && o != nil && len(o.parts) > n {
		d.at(i, n)
	}
}

// update folds the messages again from the first changed one and says what
// to write; ok is false when the file already holds the conversation.
func (e *jsonlEncoder) update(c *conversation, from int) (w unitWrite, ok bool, err error) {
	d := min(from, len(c.msgs))
	start, at := d, e.endAt()
	if d < len(e.msgs) {
		at = e.msgs[d].at
	}
	keepLines, cut := at.lines, at.parts // lines kept; parts kept of the last (-1: all)
	if keepLines > 0 && e.lines[keepLines-1].parts == nil {
		// The line to continue is not known: fold again from the last line
		// that starts cleanly before the change instead, keeping the lines
		// before it whole.
		k := sort.Search(len(e.lines), func(i int) bool { return e.lines[i].first >= d }) - 1
		for k >= 0 && !e.lines[k].clean {
			k--
		}
		if k < 0 {
			keepLines, cut = 0, -1 // the messages before d send nothing
		} else {
			start, keepLines, cut = e.lines[k].first, k, -1
		}
	}
	if keepLines == 0 {
		cut = -1
	}
	diff := lineDiff{base: keepLines}
	if cut >= 0 {
		diff.base = keepLines - 1
	}
	diff.old = slices.Clone(e.lines[diff.base:])
	lines := e.lines[:keepLines]
	if cut >= 0 {
		lines[keepLines-1].parts = lines[keepLines-1].parts[:cut]
	}
	emit := func(role string, part []byte, msg int, first bool) {
		if n := len(lines); n > 0 && lines[n-1].role == role {
			diff.add(n-1, len(lines[n-1].parts), role, part)
			lines[n-1].parts = append(lines[n-1].parts, part)
			return
		}
		if n := len(lines); n > 0 {
			diff.end(n-1, len(lines[n-1].parts))
		}
		diff.add(len(lines), 0, role, part)
		// Reuse the array of the line this one replaces: a part is compared
		// with the old one (diff.add) before it takes its place.
		parts := make([][]byte, 0, 2)
		if o := diff.oldLine(len(lines)); o != nil && o.parts != nil {
			parts = o.parts[:0]
		}
		lines = append(lines, jsonlLine{role: role, parts: append(parts, part), first: msg, clean: first})
	}
	pos := func() foldAt {
		if n := len(lines); n > 0 {
			return foldAt{n, len(lines[n-1].parts)}
		}
		return foldAt{}
	}
	if err := e.fold(c, start, pos, emit, true); err != nil {
		return w, false, err
	}
	if n := len(lines); n > 0 {
		diff.end(n-1, len(lines[n-1].parts))
	}
	if len(diff.old) > len(lines)-diff.base {
		diff.at(len(lines), 0) // lines were dropped
	}
	if old := e.lines; len(old) > len(lines) {
		clear(old[len(lines):]) // what no line holds any more
	}
	e.lines = lines
	if !diff.found {
		return w, false, nil
	}
	w.from = diff.line
	for i := diff.line; i < len(lines); i++ {
		p := 0
		if i == diff.line {
			p = diff.part
			if o := diff.oldLine(i); o != nil && textForm(o.parts) {
				p = 0 // it was written in text form: write it whole
			}
		}
		keep, pieces := linePieces(&lines[i], p)
		if i == diff.line {
			w.keep = keep
		}
		w.units = append(w.units, pieces)
	}
	return w, true, nil
}

// fold hands the API parts of the messages from start on to emit, in file
// order, and records for each message how the lines stood before it (pos)
// and, with keep, its blocks' encodings for the next change (reused from
// the last fold where the blocks did not change).
func (e *jsonlEncoder) fold(c *conversation, start int, pos func() foldAt,
	emit func(role string, part []byte, msg int, first bool), keep bool) error {
	var err error
	for i := start; i < len(c.msgs); i++ {
		m := &c.msgs[i]
		var enc []ownRes
		if i < len(e.msgs) && e.msgs[i].enc != nil && e.msgs[i].seq == m.seq {
			if enc, _, err = refreshParts(e.msgs[i].enc, m.Blocks, m.seq, c.touched, encodeOwnRes, sameOwnRes); err != nil {
				return err
			}
		} else {
			enc = make([]ownRes, len(m.Blocks))
			for k := range m.Blocks {
				if enc[k], err = encodeOwnRes(&m.Blocks[k]); err != nil {
					return err
				}
			}
		}
		jm := jsonlMsg{seq: m.seq, at: pos()}
		if keep {
			jm.enc = enc
		}
		if i < len(e.msgs) {
			e.msgs[i] = jm
		} else {
			e.msgs = append(e.msgs, jm)
		}
		emitted := false
		for _, p := range enc {
			if p.own != nil {
				emit(m.Role, p.own, i, !emitted)
				emitted = true
			}
		}
		for _, p := range enc {
			if p.res != nil {
				emit(RoleUser, p.res, i, !emitted)
				emitted = true
			}
		}
	}
	if len(e.msgs) > len(c.msgs) {
		clear(e.msgs[len(c.msgs):])
		e.msgs = e.msgs[:len(c.msgs)]
	}
	return nil
}

// load folds a conversation just read from its file, keeping no encoding:
// each line, once complete, is handed to same, which says whether the file
// has exactly that line at that index. It reports whether every line was.
func (e *jsonlEncoder) load(c *conversation, same func(i int, pieces [][]byte) bool) (bool, error) {
	e.lines, e.msgs = nil, nil
	ok := true
	done := func() {
		if n := len(e.lines); n > 0 {
			l := &e.lines[n-1]
			_, pieces := linePieces(l, 0)
			ok = ok && same(n-1, pieces)
			l.parts = nil // not kept: the file holds it
		}
	}
	pos := func() foldAt {
		if n := len(e.lines); n > 0 {
			return foldAt{n, len(e.lines[n-1].parts)}
		}
		return foldAt{}
	}
	emit := func(role string, part []byte, msg int, first bool) {
		if n := len(e.lines); n > 0 && e.lines[n-1].role == role {
			e.lines[n-1].parts = append(e.lines[n-1].parts, part)
			return
		}
		done()
		e.lines = append(e.lines, jsonlLine{role: role, parts: [][]byte{part}, first: msg, clean: first})
	}
	if err := e.fold(c, 0, pos, emit, false); err != nil {
		return false, err
	}
	done()
	return ok, nil
}
