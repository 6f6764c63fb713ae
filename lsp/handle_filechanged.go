package lsp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"time"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/watcher"
)

// watchList is FileChanged's watch list, as Claude Code keeps it: the files
// the FileChanged matchers name, and the absolute paths the latest
// CwdChanged or FileChanged hook returned as watchPaths. An editor that can
// register file watchers on request (dynamic registration of
// workspace/didChangeWatchedFiles) is asked to watch them and tells the
// server about changes; with any other editor the server watches them
// itself with fsnotify.
type watchList struct {
	fromConfig []string
	dynamic    []string
	// dynamicReg: the editor watches for us; registered is the list it was
	// last asked to watch.
	dynamicReg bool
	registered []string
	// fsw is the server's own watcher, used when the editor cannot watch;
	// exists says whether each file it watches existed at the last look,
	// so a change can be told apart as add, change or unlink.
	fsw    *watcher.Watcher
	exists map[string]bool
	// listed is the set of all(), kept up to date by setLists: a changed
	// file is looked up in it, not searched for in a list of up to
	// hooks.MaxWatchPaths paths.
	listed map[string]bool
}

// fileWatchID names the server's registration of watched files with the editor.
const fileWatchID = "wave.fileChanged"

// all is the watch list: the configuration's files, then the dynamic ones
// it does not hold.
func (w *watchList) all() []string {
	out := slices.Clone(w.fromConfig)
	for _, p := range w.dynamic {
		if !w.inConfig(p) {
			out = append(out, p)
		}
	}
	return out
}

// inConfig reports whether p is one of the configuration's files (a
// handful: the FileChanged matchers' names).
func (w *watchList) inConfig(p string) bool { return slices.Contains(w.fromConfig, p) }

// setLists replaces the two parts of the list (nil keeps a part) and
// rebuilds listed; the caller holds observed.mu.
func (w *watchList) setLists(fromConfig, dynamic []string) {
	if fromConfig != nil {
		w.fromConfig = fromConfig
	}
	if dynamic != nil {
		w.dynamic = dynamic
	}
	w.listed = make(map[string]bool, len(w.fromConfig)+len(w.dynamic))
	for _, p := range w.fromConfig {
		w.listed[p] = true
	}
	for _, p := range w.dynamic {
		w.listed[p] = true
	}
}

// watchChangedFiles starts FileChanged's watching, with the server's own
// watcher fsw (nil when it could not start) as the fallback.
func (s *Server) watchChangedFiles(fsw *watcher.Watcher) {
	s.observed.mu.Lock()
	s.observed.files.fsw = fsw
	s.observed.mu.Unlock()
	s.updateWatchList()
}

// updateWatchList reads the watch list of the FileChanged matchers in force.
func (s *Server) updateWatchList() {
	list := s.engine.Config().FileChangedWatchList()
	s.observed.mu.Lock()
	s.observed.files.setLists(nonNil(list), nil)
	s.observed.mu.Unlock()
	s.syncWatches()
}

// setDynamicWatch replaces the dynamic part of the watch list with the
// watchPaths a hook returned.
func (s *Server) setDynamicWatch(paths []string) {
	s.observed.mu.Lock()
	s.observed.files.setLists(nil, nonNil(slices.Clone(paths)))
	s.observed.mu.Unlock()
	s.syncWatches()
}

// isWatchedFile reports whether path is on FileChanged's watch list.
func (s *Server) isWatchedFile(path string) bool {
	s.observed.mu.Lock()
	defer s.observed.mu.Unlock()
	return s.observed.files.listed[path]
}

// syncWatches makes the editor, or the server's own watcher, watch the
// files on the list.
func (s *Server) syncWatches() {
	o := s.observed
	o.mu.Lock()
	w := &o.files
	list, fsw, dynamicReg := w.all(), w.fsw, w.dynamicReg
	var add []string
	if !dynamicReg && fsw != nil {
		if w.exists == nil {
			w.exists = map[string]bool{}
		}
		for _, p := range list {
			if _, ok := w.exists[p]; !ok {
				_, err := os.Stat(p)
				w.exists[p] = err == nil
				add = append(add, p)
			}
		}
	}
	o.mu.Unlock()
	for _, p := range add {
		if err := fsw.WatchFile(p); err != nil {
			s.log.Debug("cannot watch for FileChanged", "path", p, "err", err)
		}
	}
	if dynamicReg && s.connCtx.Err() == nil {
		s.background(func() {
			s.registerWatches()
		})
	}
}

// registerWatches asks the editor to watch the files on the list, replacing
// the previous registration, unless the list did not change.
func (s *Server) registerWatches() {
	o := s.observed
	o.register.Lock()
	defer o.register.Unlock()
	o.mu.Lock()
	list, before := o.files.all(), o.files.registered
	o.mu.Unlock()
	if slices.Equal(list, before) {
		return
	}
	ctx, cancel := context.WithTimeout(s.connCtx, 30*time.Second)
	defer cancel()
	if before != nil {
		if _, err := s.conn.Call(ctx, protocol.MethodClientUnregisterCapability, &protocol.UnregistrationParams{
			Unregisterations: []protocol.Unregistration{{ID: fileWatchID, Method: protocol.MethodWorkspaceDidChangeWatchedFiles}}}, nil); err != nil {
			s.log.Debug("client/unregisterCapability", "err", err)
		}
	}
	if len(list) > 0 {
		watchers := make([]protocol.FileSystemWatcher, len(list))
		for i, p := range list {
			watchers[i] = protocol.FileSystemWatcher{GlobPattern: p,
				Kind: protocol.WatchKindCreate + protocol.WatchKindChange + protocol.WatchKindDelete}
		}
		if _, err := s.conn.Call(ctx, protocol.MethodClientRegisterCapability, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
			ID: fileWatchID, Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
			RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: watchers}}}}, nil); err != nil {
			s.log.Warn("the editor did not register the files FileChanged watches", "err", err)
			list = nil
		}
	}
	o.mu.Lock()
	o.files.registered = list
	o.mu.Unlock()
}

// didChangeWatchedFiles fires FileChanged for each change the editor
// reports to a file on the watch list; other files are not the server's
// business (settings files have their own watcher).
func (s *Server) didChangeWatchedFiles(_ context.Context, p *protocol.DidChangeWatchedFilesParams) {
	var ins []event.Input
	for _, ch := range p.Changes {
		if ch == nil {
			continue
		}
		path, ok := localPath(string(ch.URI))
		if !ok || !s.isWatchedFile(path) {
			continue
		}
		kind := map[protocol.FileChangeType]string{protocol.FileChangeTypeCreated: "add",
			protocol.FileChangeTypeChanged: "change", protocol.FileChangeTypeDeleted: "unlink"}[ch.Type]
		if kind == "" {
			continue
		}
		ins = append(ins, fileChangedInput(path, kind))
	}
	s.goObserved(ins...)
}

// watchedFilesChanged fires FileChanged for files on the watch list that the
// server's own watcher saw change: add, change or unlink by whether the
// file exists now and did before.
func (s *Server) watchedFilesChanged(paths []string) {
	var ins []event.Input
	for _, p := range paths {
		_, err := os.Stat(p)
		now := err == nil
		s.observed.mu.Lock()
		before := s.observed.files.exists[p]
		s.observed.files.exists[p] = now
		s.observed.mu.Unlock()
		kind := "change"
		switch {
		case !before && !now:
			continue
		case !before:
			kind = "add"
		case !now:
			kind = "unlink"
		}
		ins = append(ins, fileChangedInput(p, kind))
	}
	s.goObserved(ins...)
}

// isFallbackWatched reports whether the server's own watcher watches path
// for FileChanged.
func (s *Server) isFallbackWatched(path string) bool {
	s.observed.mu.Lock()
	defer s.observed.mu.Unlock()
	_, ok := s.observed.files.exists[path]
	return ok && !s.observed.files.dynamicReg && s.observed.files.listed[path]
}

func fileChangedInput(path, kind string) event.Input {
	p, _ := json.Marshal(path)
	k, _ := json.Marshal(kind)
	return event.Input{Event: event.FileChanged, Extra: map[string]json.RawMessage{"file_path": p, "event": k}}
}
