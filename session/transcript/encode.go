package transcript

import (
	"bytes"
	"fmt"
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

// changed is what a save is given: the conversation's messages and the
// blocks changed in place since the last save (see BlockRef).
type changed struct {
	msgs    []Message
	touched []BlockRef
}

// BlockRef names block I of the message numbered Seq (Message.Seq): the
// conversation lists the blocks it changed in place since the last save, so
// that the encoders encode again only those. Blocks are otherwise only
// appended to a message or cut from its end.
type BlockRef struct {
	Seq uint64
	I   int
}

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
func refreshParts[P any](parts []P, blocks []Block, seq uint64, touched []BlockRef,
	encode func(*Block) (P, error), same func(a, b P) bool) ([]P, int, error) {
	first := -1
	lower := func(i int) {
		if first < 0 || i < first {
			first = i
		}
	}
	n := min(len(parts), len(blocks))
	for _, t := range touched {
		if t.Seq != seq || t.I >= n {
			continue
		}
		enc, err := encode(&blocks[t.I])
		if err != nil {
			return nil, 0, err
		}
		if !same(enc, parts[t.I]) {
			parts[t.I] = enc
			lower(t.I)
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
// It starts from the size encodeMessage reckons for a block, with room for
// some escapes in the texts, so that a tool block of a few KiB is not grown
// from nothing a dozen times at every save.
func encodeBlock(b *Block) ([]byte, error) {
	n := 128 + len(b.Content)
	if t := b.tool; t != nil {
		n += len(t.Input) + len(t.Result) + len(t.Error)
	}
	n += n / 8
	return appendBlock(make([]byte, 0, n), b)
}

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
func (e *jsonEncoder) update(c *changed, from int) (w unitWrite, ok bool, err error) {
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
func (e *jsonEncoder) updateFrom(whole *changed, d int) (w unitWrite, ok bool, err error) {
	c := &changed{msgs: whole.msgs[e.base:], touched: whole.touched}
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
	// loaded are the file's first lines, as a load found them (load): only
	// the message whose content starts each one and whether it starts
	// cleanly (loadedLine), since their parts are not kept (the file holds
	// them) and a long session resumed should hold little besides its
	// messages. lines are the lines after them.
	loaded []loadedLine
	lines  []jsonlLine
	// msgs are the messages from index base on; those before were loaded
	// and only ever folded again from a clean line of loaded.
	base int
	msgs []jsonlMsg
}

// loadedLine is a loaded line's first message (jsonlLine.first) shifted
// left by one, its lowest bit jsonlLine.clean.
type loadedLine uint32

func (l loadedLine) first() int  { return int(l >> 1) }
func (l loadedLine) clean() bool { return l&1 != 0 }

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
	o, r, hasOwn, hasRes := blockAPI(b)
	if hasOwn {
		if own, err = appendAPIBlock(nil, &o); err != nil {
			return nil, nil, err
		}
	}
	if hasRes {
		if res, err = appendAPIBlock(nil, &r); err != nil {
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

// endAt is how the lines after e.loaded stand after every message.
func (e *jsonlEncoder) endAt() foldAt {
	if n := len(e.lines); n > 0 {
		return foldAt{n, len(e.lines[n-1].parts)}
	}
	return foldAt{}
}

// lineDiff finds the first place, in file order, where the lines folded
// again differ from the lines on disk, as the fold makes them. Line
// indices are those of jsonlEncoder.lines (after the loaded lines).
type lineDiff struct {
	// unknown lines on disk from index base on are not known (loaded ones
	// folded again), and old are the lines after them.
	unknown int
	old     []jsonlLine
	base    int
	found   bool
	line    int
	part    int
}

func (d *lineDiff) at(line, part int) {
	if !d.found {
		d.found, d.line, d.part = true, line, part
	}
}

// unknownLine stands for a line on disk whose parts are not known; it is
// only ever read.
var unknownLine jsonlLine

func (d *lineDiff) oldLine(i int) *jsonlLine {
	j := i - d.base
	switch {
	case j < 0:
		return nil
	case j < d.unknown:
		return &unknownLine
	case j-d.unknown < len(d.old):
		return &d.old[j-d.unknown]
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
func (e *jsonlEncoder) update(c *changed, from int) (w unitWrite, ok bool, err error) {
	d := min(from, len(c.msgs))
	start, keepLines, cut := d, 0, -1 // lines kept; parts kept of the last (-1: all)
	known := false
	if d >= e.base {
		at := e.endAt()
		if d-e.base < len(e.msgs) {
			at = e.msgs[d-e.base].at
		}
		keepLines, cut = at.lines, at.parts
		// The line to continue, the one before message d's content, is
		// known unless it is a loaded one.
		known = keepLines > 0 || len(e.loaded) == 0
	}
	if keepLines == 0 {
		cut = -1
	}
	diff := lineDiff{base: keepLines}
	if cut >= 0 {
		diff.base = keepLines - 1
	}
	var lines []jsonlLine
	if known {
		diff.old = slices.Clone(e.lines[diff.base:])
		lines = e.lines[:keepLines]
		if cut >= 0 {
			lines[keepLines-1].parts = lines[keepLines-1].parts[:cut]
		}
	} else {
		// The line to continue is a loaded one, whose parts are not known:
		// fold again from the last loaded line that starts cleanly before
		// the change instead, keeping the lines before it as they are. No
		// line after it is known any more (they all follow the change).
		k := sort.Search(len(e.loaded), func(i int) bool { return e.loaded[i].first() >= d }) - 1
		for k >= 0 && !e.loaded[k].clean() {
			k--
		}
		keep := 0 // with no such line, the messages before d send nothing
		if k >= 0 {
			start, keep = e.loaded[k].first(), k
		}
		diff = lineDiff{unknown: len(e.loaded) - keep, old: e.lines}
		clear(e.msgs)
		e.loaded, e.lines, e.base, e.msgs = e.loaded[:keep], nil, start, nil
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
	if err := e.fold(c, start, pos, emit); err != nil {
		return w, false, err
	}
	if n := len(lines); n > 0 {
		diff.end(n-1, len(lines[n-1].parts))
	}
	if diff.unknown+len(diff.old) > len(lines)-diff.base {
		diff.at(len(lines), 0) // lines were dropped
	}
	if old := e.lines; len(old) > len(lines) {
		clear(old[len(lines):]) // what no line holds any more
	}
	e.lines = lines
	if !diff.found {
		return w, false, nil
	}
	w.from = len(e.loaded) + diff.line
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

// fold hands the API parts of the messages from start (at least e.base) on
// to emit, in file order, and records for each message how the lines stood
// before it (pos) and its blocks' encodings for the next change (reused
// from the last fold where the blocks did not change).
func (e *jsonlEncoder) fold(c *changed, start int, pos func() foldAt,
	emit func(role string, part []byte, msg int, first bool)) error {
	var err error
	for i := start; i < len(c.msgs); i++ {
		m := &c.msgs[i]
		j := i - e.base
		var enc []ownRes
		if j < len(e.msgs) && e.msgs[j].enc != nil && e.msgs[j].seq == m.seq {
			if enc, _, err = refreshParts(e.msgs[j].enc, m.Blocks, m.seq, c.touched, encodeOwnRes, sameOwnRes); err != nil {
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
		jm := jsonlMsg{seq: m.seq, at: pos(), enc: enc}
		if j < len(e.msgs) {
			e.msgs[j] = jm
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
	if n := len(c.msgs) - e.base; len(e.msgs) > n {
		clear(e.msgs[n:])
		e.msgs = e.msgs[:n]
	}
	return nil
}

// load folds a conversation just read from its file as update would, but
// keeping nothing of the lines besides what loadedLine holds: each line,
// once complete, is encoded into one reused buffer and its sum handed to
// same, which says whether the file has exactly that line at that index.
// It reports whether every line was; lines, the file's, sizes the list of
// loaded lines. A load makes no garbage for a line
// (docs/performance.md, "100,000 small messages").
func (e *jsonlEncoder) load(msgs []Message, lines int, same func(i int, sum lineSum) bool) (bool, error) {
	e.loaded, e.lines, e.base, e.msgs = make([]loadedLine, 0, lines), nil, len(msgs), nil
	ok := true
	var (
		line, res []byte // the current line's parts; a message's results
		role      string // the current line's
		parts     int    // its number of parts
		nres      int
		first     int
		clean     bool
	)
	done := func() error {
		if parts == 0 {
			return nil
		}
		if first > maxLoadedFirst {
			return fmt.Errorf("session of more than %d messages", maxLoadedFirst)
		}
		open := openOf(jsonlOpens, role, "content")
		var sum lineSum
		if parts == 1 && bytes.HasPrefix(line, textPartStart) {
			// Text form, as linePieces writes it.
			sum = sumOf(open[:len(open)-1], line[len(textPartStart):len(line)-1], closeBrace)
		} else {
			sum = sumOf(open, line, listClose)
		}
		ok = ok && same(len(e.loaded), sum)
		l := loadedLine(first) << 1
		if clean {
			l |= 1
		}
		e.loaded = append(e.loaded, l)
		parts = 0
		return nil
	}
	// begin makes room for a part of role r from message i on the line.
	begin := func(r string, i int, isFirst bool) error {
		if parts > 0 && role == r {
			line = append(line, ',')
			parts++
			return nil
		}
		if err := done(); err != nil {
			return err
		}
		role, first, clean, parts, line = r, i, isFirst, 1, line[:0]
		return nil
	}
	var err error
	for i := range msgs {
		m := &msgs[i]
		emitted := false
		res, nres = res[:0], 0
		for k := range m.Blocks {
			own, r, hasOwn, hasRes := blockAPI(&m.Blocks[k])
			if hasOwn {
				if err := begin(m.Role, i, !emitted); err != nil {
					return false, err
				}
				emitted = true
				if line, err = appendAPIBlock(line, &own); err != nil {
					return false, err
				}
			}
			if hasRes {
				if nres > 0 {
					res = append(res, ',')
				}
				nres++
				if res, err = appendAPIBlock(res, &r); err != nil {
					return false, err
				}
			}
		}
		if nres > 0 {
			if parts > 0 && role == RoleUser {
				line = append(line, ',')
				parts += nres
			} else {
				if err := done(); err != nil {
					return false, err
				}
				role, first, clean, parts, line = RoleUser, i, !emitted, nres, line[:0]
			}
			line = append(line, res...)
		}
	}
	if err := done(); err != nil {
		return false, err
	}
	return ok, nil
}

// maxLoadedFirst is the largest message index a loadedLine holds, far more
// than a session file of MaxSessionFileBytes can have lines.
const maxLoadedFirst = 1<<31 - 1

var closeBrace = []byte("}")
