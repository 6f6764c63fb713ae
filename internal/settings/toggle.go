package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/event"
)

// This file turns one hook on or off in its settings file ("enabled"), for
// the editor's code action and `wavehooks hooks disable|enable`: one small
// text edit, so that the file's comments, order and layout stay as the user
// wrote them.

// TextEdit replaces the bytes [Start, End) of a file with Text.
type TextEdit struct {
	Start, End int
	Text       string
}

// Apply returns src with the edit made.
func (e TextEdit) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(e.Text))
	out = append(out, src[:e.Start]...)
	out = append(out, e.Text...)
	return append(out, src[e.End:]...)
}

// HookID is a short, stable name for a configured hook on the command line:
// a hash of its file, event and place in the file, so it stays the same
// while the hooks before it in the file do not move.
func HookID(h *Hook) string {
	sum := sha256.Sum256([]byte(h.File + "\x00" + string(h.Event) + "\x00" + strconv.Itoa(h.Place.Group) + "\x00" + strconv.Itoa(h.Place.Index)))
	return hex.EncodeToString(sum[:4])
}

// FindHook returns the hook of cfg whose HookID is id.
func FindHook(cfg *Config, id string) (*Hook, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	for i := range cfg.Hooks {
		if HookID(&cfg.Hooks[i]) == id {
			return &cfg.Hooks[i], nil
		}
	}
	return nil, fmt.Errorf("no hook has the ID %q (`wavehooks hooks list` shows them)", id)
}

// ErrGroupDisabled: the hook is off because its matcher group is; turning the
// hook on alone would not make it run.
var ErrGroupDisabled = errors.New(`its matcher group says "enabled": false; turn the group on (or move the hook out of it)`)

// EnableEdit is the edit of the settings text src that turns the hook at
// place under ev on or off: an "enabled" key it has gets the new value, and
// one it lacks is added after its last key (on a line of its own when the
// hook is written over several lines). Turning on a hook whose group is off
// is ErrGroupDisabled; group says to edit the group's key instead.
func EnableEdit(src []byte, ev event.Event, place HookPlace, on, group bool) (TextEdit, error) {
	v, err := hujson.Parse(src)
	if err != nil {
		return TextEdit{}, fmt.Errorf("the settings file does not parse: %w", err)
	}
	obj, err := placedObject(&v, ev, place, group)
	if err != nil {
		return TextEdit{}, err
	}
	val := strconv.FormatBool(on)
	for i := range obj.Members {
		if m := &obj.Members[i]; memberName(m) == "enabled" {
			return TextEdit{Start: m.Value.StartOffset, End: m.Value.EndOffset, Text: val}, nil
		}
	}
	if on {
		if place.GroupDisabled && !group {
			return TextEdit{}, ErrGroupDisabled
		}
		return TextEdit{}, errors.New("it is already on")
	}
	if len(obj.Members) == 0 {
		return TextEdit{}, errors.New("the object is empty")
	}
	last := &obj.Members[len(obj.Members)-1]
	sep := ", "
	if before := string(last.Name.BeforeExtra); strings.Contains(before, "\n") {
		indent := before[strings.LastIndex(before, "\n")+1:]
		if strings.TrimSpace(indent) == "" {
			sep = ",\n" + indent
		}
	}
	at := last.Value.EndOffset
	return TextEdit{Start: at, End: at, Text: sep + `"enabled": ` + val}, nil
}

// placedObject finds the hook object (or, with group, its matcher group)
// at place under ev in a parsed settings file.
func placedObject(v *hujson.Value, ev event.Event, place HookPlace, group bool) (*hujson.Object, error) {
	member := func(v *hujson.Value, name string) *hujson.Value {
		if v == nil {
			return nil
		}
		if obj, ok := v.Value.(*hujson.Object); ok {
			for i := range obj.Members {
				if memberName(&obj.Members[i]) == name {
					return &obj.Members[i].Value
				}
			}
		}
		return nil
	}
	element := func(v *hujson.Value, i int) *hujson.Value {
		if v == nil {
			return nil
		}
		if arr, ok := v.Value.(*hujson.Array); ok && i >= 0 && i < len(arr.Elements) {
			return &arr.Elements[i]
		}
		return nil
	}
	cur := member(v, "hooks")
	if cur != nil {
		cur = member(cur, string(ev))
	}
	if cur != nil {
		cur = element(cur, place.Group)
	}
	if cur != nil && !group && place.Index >= 0 {
		if cur = member(cur, "hooks"); cur != nil {
			cur = element(cur, place.Index)
		}
	}
	if cur == nil {
		return nil, errors.New("the hook is no longer where it was in the file; load it again")
	}
	obj, ok := cur.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New("the hook is no longer an object in the file; load it again")
	}
	return obj, nil
}

// HookAt is what the settings text src holds at place under ev: the hook
// object, standardized (comments and layout dropped) and without its
// "enabled" key, which says what the hook is whether it is on or off; and
// whether its matcher group says "enabled": false. A hook's place (and so
// its HookID) names whatever hook is there now, so a caller that edits a
// file which changed since it was read compares the two keys to make
// sure the place still holds the hook it means to turn on or off, and
// takes groupDisabled from the file as it is now.
func HookAt(src []byte, ev event.Event, place HookPlace) (key []byte, groupDisabled bool, err error) {
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, false, fmt.Errorf("the settings file does not parse: %w", err)
	}
	grp, err := placedObject(&v, ev, place, true)
	if err != nil {
		return nil, false, err
	}
	for i := range grp.Members {
		if m := &grp.Members[i]; memberName(m) == "enabled" {
			lit, ok := m.Value.Value.(hujson.Literal)
			groupDisabled = ok && lit.Kind() == 'f'
		}
	}
	obj, err := placedObject(&v, ev, place, false)
	if err != nil {
		return nil, false, err
	}
	rest := &hujson.Object{}
	for _, m := range obj.Members {
		if memberName(&m) != "enabled" {
			rest.Members = append(rest.Members, m)
		}
	}
	out := hujson.Value{Value: rest}
	out.Standardize() // v is this call's own: changing its values in place is fine
	out.Minimize()
	return out.Pack(), groupDisabled, nil
}
