package settings

import (
	"errors"
	"strconv"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/event"
)

// This file makes the edits of the quick fixes for hooks that can never
// run (neverrun.go): removing a shadowed duplicate, and moving a hook
// whose "if" rule its group's matcher never lets through into a group of
// its own. Each is a few small text edits, so that the rest of the file
// (comments, order, layout) stays as the user wrote it.

// placedArray returns the "hooks" array of the matcher group at place
// under ev, and the event's array of groups.
func placedArrays(v *hujson.Value, ev event.Event, place HookPlace) (groups, hooks *hujson.Array, err error) {
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, nil, errors.New("the settings file is not an object")
	}
	member := func(obj *hujson.Object, name string) *hujson.Value {
		for i := range obj.Members {
			if memberName(&obj.Members[i]) == name {
				return &obj.Members[i].Value
			}
		}
		return nil
	}
	moved := errors.New("the hook is no longer where it was in the file; load it again")
	hv := member(root, "hooks")
	if hv == nil {
		return nil, nil, moved
	}
	byEvent, ok := hv.Value.(*hujson.Object)
	if !ok {
		return nil, nil, moved
	}
	ev2 := member(byEvent, string(ev))
	if ev2 == nil {
		return nil, nil, moved
	}
	if groups, ok = ev2.Value.(*hujson.Array); !ok || place.Group < 0 || place.Group >= len(groups.Elements) {
		return nil, nil, moved
	}
	g, ok := groups.Elements[place.Group].Value.(*hujson.Object)
	if !ok {
		return nil, nil, moved
	}
	if hv = member(g, "hooks"); hv == nil {
		return nil, nil, moved
	}
	if hooks, ok = hv.Value.(*hujson.Array); !ok || place.Index < 0 || place.Index >= len(hooks.Elements) {
		return nil, nil, moved
	}
	return groups, hooks, nil
}

// removeElement is the edit that removes element i of arr with the comma
// that separates it from its neighbour.
func removeElement(arr *hujson.Array, i int) TextEdit {
	el := arr.Elements
	switch {
	case i > 0: // from the end of the one before: its comma and this one
		return TextEdit{Start: el[i-1].EndOffset, End: el[i].EndOffset}
	case len(el) > 1: // the first of several: it, its comma, up to the next
		return TextEdit{Start: el[0].StartOffset, End: el[1].StartOffset}
	default:
		return TextEdit{Start: el[0].StartOffset, End: el[0].EndOffset}
	}
}

// RemoveHookEdit is the edit of the settings text src that deletes the
// hook at place under ev (the quick fix of a shadowed duplicate): the hook
// and its comma, or its whole matcher group when the hook is the group's
// only one, so that no empty group is left behind.
func RemoveHookEdit(src []byte, ev event.Event, place HookPlace) (TextEdit, error) {
	v, err := hujson.Parse(src)
	if err != nil {
		return TextEdit{}, errors.New("the settings file does not parse: " + err.Error())
	}
	groups, hooks, err := placedArrays(&v, ev, place)
	if err != nil {
		return TextEdit{}, err
	}
	if len(hooks.Elements) == 1 {
		return removeElement(groups, place.Group), nil
	}
	return removeElement(hooks, place.Index), nil
}

// MoveHookEdits are the edits of the settings text src that give the hook
// at place under ev the matcher matcher (the quick fix of an "if" rule its
// group's matcher never lets through): the group's matcher changed when
// the hook is the group's only one, else the hook taken out of its group
// and appended to the event's groups in a new group of its own, so that
// the group's other hooks keep their matcher. The edits are in file order
// and do not overlap.
func MoveHookEdits(src []byte, ev event.Event, place HookPlace, matcher string) ([]TextEdit, error) {
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, errors.New("the settings file does not parse: " + err.Error())
	}
	groups, hooks, err := placedArrays(&v, ev, place)
	if err != nil {
		return nil, err
	}
	quoted := strconv.Quote(matcher)
	if len(hooks.Elements) == 1 {
		g := groups.Elements[place.Group].Value.(*hujson.Object)
		for i := range g.Members {
			if m := &g.Members[i]; memberName(m) == "matcher" {
				return []TextEdit{{Start: m.Value.StartOffset, End: m.Value.EndOffset, Text: quoted}}, nil
			}
		}
		return nil, errors.New("the hook's group has no matcher")
	}
	h := hooks.Elements[place.Index]
	hookText := string(src[h.StartOffset:h.EndOffset])
	last := groups.Elements[len(groups.Elements)-1]
	return []TextEdit{
		removeElement(hooks, place.Index),
		{Start: last.EndOffset, End: last.EndOffset, Text: `, {"matcher": ` + quoted + `, "hooks": [` + hookText + `]}`},
	}, nil
}
