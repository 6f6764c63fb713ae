package lsp

import "github.com/wavehooks/wavehooks/internal/event"

// The shape of a settings file, as hover and completion see it:
//
//	{ROOT KEY: …, "hooks": {EVENT: [{"matcher": MATCHER, "hooks": [{HOOK KEY: VALUE}]}]}}
//
// Place maps a cursor's Location onto it, so that the one description of
// where events, matcher groups and hooks sit is here, beside the parser
// that reads the same shape (parse.go) and the key lists it checks
// (RootKeys, GroupKeys, HookKeys).

// PlaceKind is which part of the settings shape a cursor is in.
type PlaceKind int

const (
	PlaceOther     PlaceKind = iota // nothing hover or completion knows about
	PlaceRootKey                    // a key of the settings object
	PlaceEventKey                   // an event name: a key of "hooks"
	PlaceGroupKey                   // a key of a matcher group
	PlaceHookKey                    // a key of a hook
	PlaceMatcher                    // the value of a group's matcher
	PlaceHookValue                  // the value of one of a hook's keys
)

// Place is where a cursor is in the settings shape.
type Place struct {
	Kind PlaceKind
	// Event is the event of the matcher group the place is in ("" at the
	// root, and for a matcher outside the usual shape).
	Event event.Event
	// Key is the hook key whose value a PlaceHookValue is.
	Key string
}

// Place finds where l is in the shape of a settings file.
func (l Location) Place() Place {
	p := l.Path
	if l.OnKey && l.InString && len(p) > 0 {
		p = p[:len(p)-1] // a key being typed or hovered is not part of where it sits
	}
	inHooks := len(p) > 0 && p[0] == "hooks"
	var ev event.Event
	if inHooks && len(p) > 1 {
		ev = event.Event(p[1])
	}
	switch {
	case l.OnKey && len(p) == 0:
		return Place{Kind: PlaceRootKey}
	case l.OnKey && inHooks && len(p) == 1:
		return Place{Kind: PlaceEventKey}
	case l.OnKey && inHooks && len(p) == 3:
		return Place{Kind: PlaceGroupKey, Event: ev}
	case l.OnKey && inHooks && len(p) == 5 && p[3] == "hooks":
		return Place{Kind: PlaceHookKey, Event: ev}
	case l.OnKey:
		return Place{}
	case inHooks && len(p) == 6 && p[3] == "hooks":
		return Place{Kind: PlaceHookValue, Event: ev, Key: p[5]}
	case len(p) > 0 && p[len(p)-1] == "matcher":
		if !(inHooks && len(p) == 4) {
			ev = "" // a matcher outside the usual shape: explained without an event
		}
		return Place{Kind: PlaceMatcher, Event: ev}
	}
	return Place{}
}
