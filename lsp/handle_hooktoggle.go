package lsp

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/wire"
)

// This file is the editors' "toggle one hook" command: wave/listHooks lists
// the configured hooks as `wavehooks hooks list` does (same ids), and the
// wave.toggleHook command turns one off or on in its settings file as
// `wavehooks hooks disable|enable` does ("enabled": false, comments and
// layout kept, the file replaced atomically), so that an editor can offer a
// pick of hooks to switch.

// methodListHooks lists the configured hooks (ListHooksResult).
const methodListHooks = "wave/listHooks"

// commandToggleHook turns one hook off or on (arguments: its id, and
// optionally true or false; without it the hook is switched).
const commandToggleHook = "wave.toggleHook"

// HookListing is one configured hook, as `wavehooks hooks list --format
// json` prints it: the id wave.toggleHook and the command line take.
type HookListing = wire.HookListing

// ListHooksResult is every hook of the settings files, in their order.
type ListHooksResult struct {
	Hooks []HookListing `json:"hooks"`
}

// ToggleHookResult is what wave.toggleHook did.
type ToggleHookResult struct {
	ID      string `json:"id"`
	Enabled bool   `json:"enabled"`
	Event   string `json:"event"`
	File    string `json:"file"`
	Command string `json:"command"`
	// Message says it in a line for the user (escaped).
	Message string `json:"message"`
}

// savedConfig is the configuration of the settings files as saved: what
// `wavehooks hooks list` reads, so that both give a hook the same id, and
// a workspace's hooks are listed (and may be turned off) before trust.
func (s *Server) savedConfig() *settings.Config { return settings.Load(s.paths, nil) }

// listHooks is wave/listHooks.
func (s *Server) listHooks(context.Context, *struct{}) (*ListHooksResult, error) {
	cfg := s.savedConfig()
	out := &ListHooksResult{Hooks: wire.ListHooks(cfg)}
	return out, nil
}

// toggleHookCommand is wave.toggleHook: the hook with the id turned off or
// on in its saved settings file, then the settings reloaded, so that the
// next event already runs (or skips) it. A managed hook is refused, as is a
// file with unsaved changes in the editor (the edit would be lost or would
// lose them). Turning a workspace hook on changes what trust covers: it
// runs once the workspace is trusted with it on.
func (s *Server) toggleHookCommand(args []any) (*ToggleHookResult, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, badParam("arguments", "%s takes [hookId] or [hookId, enabled]", commandToggleHook)
	}
	id, _ := args[0].(string)
	if id == "" {
		return nil, badParam("arguments[0]", "must be a hook id (wave/listHooks)")
	}
	h, err := settings.FindHook(s.savedConfig(), id)
	if err != nil {
		return nil, badParam("arguments[0]", "%v", err)
	}
	on := h.Disabled
	if len(args) == 2 {
		b, ok := args[1].(bool)
		if !ok {
			return nil, badParam("arguments[1]", "must be true or false")
		}
		on = b
	}
	path := filepath.Clean(h.File)
	if open, ok := s.docs.get(path); ok {
		saved, err := safefile.ReadFile(h.File, settings.MaxSettingsFileBytes)
		before, _ := s.toggled.Load(path)
		// A buffer that holds what an earlier toggle replaced is only behind
		// the file (an editor that has not reloaded it yet), not edited.
		if b, _ := before.([]byte); err == nil && !bytes.Equal(open, saved) && !bytes.Equal(open, b) {
			return nil, fmt.Errorf("%s has unsaved changes in the editor: save it first", h.File)
		}
	}
	before, err := host.SetHookEnabled(h, on, s.paths.WaveHome)
	if err != nil {
		return nil, err
	}
	s.toggled.Store(path, before)
	s.reloadConfig()
	state := "off: it no longer runs"
	if on {
		state = "on"
		if h.Source.FromWorkspace() {
			state += " (a workspace hook: it runs once the workspace is trusted with it on)"
		}
	}
	return &ToggleHookResult{ID: settings.HookID(h), Enabled: on, Event: string(h.Event), File: h.File, Command: h.Display(),
		Message: fmt.Sprintf("%s hook `%s` is %s", h.Event, safetext.Line(h.Display(), promptItemRunes), state)}, nil
}
