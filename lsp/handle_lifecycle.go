package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/telemetry"
)

// initializeParams is the part of LSP's InitializeParams the server reads.
// It is decoded on its own rather than as protocol.InitializeParams so that
// a client whose capabilities protocol v0.12.0 types cannot decode still starts.
type initializeParams struct {
	RootURI          string `json:"rootUri"`
	RootPath         string `json:"rootPath"`
	WorkspaceFolders []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
	InitializationOptions struct {
		WaveHome            string   `json:"waveHome"`
		TrustWorkspaceHooks bool     `json:"trustWorkspaceHooks"`
		AskTimeoutSeconds   *float64 `json:"askTimeoutSeconds"`
		HostEvents          []string `json:"hostEvents"` // the events the host fires (hostevents.go)
	} `json:"initializationOptions"`
	Capabilities struct {
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace struct {
			CodeLens struct {
				RefreshSupport bool `json:"refreshSupport"`
			} `json:"codeLens"`
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
		// Experimental may declare waveEvaluateHook (lsp/delegate.go); it
		// is read leniently, as LSP leaves its shape to each server.
		Experimental json.RawMessage `json:"experimental"`
	} `json:"capabilities"`
}

// Commands the server executes through workspace/executeCommand.
const (
	commandAllow          = "wave.permission.allow"
	commandDeny           = "wave.permission.deny"
	commandTrustWorkspace = "wave.trustWorkspace"
	commandMakeExecutable = "wave.makeExecutable"
	commandRunHook        = "wave.runHook"
)

func (s *Server) initialize(_ context.Context, p *initializeParams) (*protocol.InitializeResult, error) {
	if !s.claimInitialize() {
		return nil, jsonrpc2.NewError(rpcerr.InvalidRequest, "initialize was already called")
	}
	res, err := s.initializeClaimed(p)
	if err != nil {
		s.stateMu.Lock()
		s.initClaimed = false // a failed initialize may be sent again, corrected
		s.stateMu.Unlock()
	}
	return res, err
}

// claimInitialize checks and claims the right to initialize in one step,
// as gopls does: of two initialize requests sent at once, one runs.
func (s *Server) claimInitialize() bool {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.state != stateStarting || s.initClaimed {
		return false
	}
	s.initClaimed = true
	return true
}

func (s *Server) initializeClaimed(p *initializeParams) (*protocol.InitializeResult, error) {

	root, err := projectRoot(p)
	if err != nil {
		return nil, err
	}
	home := s.opts.WaveHome
	if o := p.InitializationOptions.WaveHome; o != "" {
		if !filepath.IsAbs(o) {
			return nil, badParam("initializationOptions.waveHome", "must be an absolute path, not %q", o)
		}
		home = filepath.Clean(o)
	}
	if home == "" {
		home = settings.DefaultWaveHome()
	}
	if t := p.InitializationOptions.AskTimeoutSeconds; t != nil {
		d, err := askTimeout(*t)
		if err != nil {
			return nil, err
		}
		s.opts.AskTimeout = d
	}
	s.root, s.waveHome = root, home
	runLog := hooks.NewRunLog(hooks.RunLogDir(home))
	s.runLogWriter = runLog.Writer()
	s.history.PersistTo(runLog) // for wavehooks test --record, and later wavehooks log
	s.telemetry = telemetry.Start(s.history, os.Getenv, home, s.opts.Version, s.log)
	if al, err := audit.Open(audit.Dir(home), audit.HostServe, audit.Options{Logger: s.log}); err != nil {
		s.log.Warn("the audit log cannot be kept: decisions are not recorded in it", "err", err)
	} else {
		s.audit.Store(al)
		s.history.Observe(al) // every run; the answers to asks are recorded by ask
	}
	s.hostEvents = hostEventSet(p.InitializationOptions.HostEvents)
	s.progress = p.Capabilities.Window.WorkDoneProgress
	s.lensRefresh = p.Capabilities.Workspace.CodeLens.RefreshSupport
	s.observed.files.dynamicReg = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	hc := s.host.Config()
	hc.WaveHome = home
	s.paths = hc.Paths(root)
	ws := s.host.Open(root, host.Options{WaveHome: home,
		TrustWorkspace: p.InitializationOptions.TrustWorkspaceHooks, // for every reload too
		Texts:          s.settingsInForce,                           // a change a ConfigChange hook blocked stays out
		Delegate:       &hostDelegate{s: s, declared: declaresEvaluateHook(p.Capabilities.Experimental)},
		OnStale:        s.onStale, OnAsyncRun: s.asyncRun})
	if ws.StoreErr != nil {
		ws.Engine.Close()
		return nil, errors.Unwrap(ws.StoreErr) // serve keeps no session in memory: initialize fails, as it did
	}
	s.ws, s.engine, s.store, s.trust = ws, ws.Engine, ws.Store, ws.Trust
	loaded := ws.Loaded()
	cfg := loaded.Config
	s.setState(stateInitializing)
	s.log.Info("wavehooks ready", "version", s.opts.Version, "root", root, "waveHome", home,
		"hooks", len(cfg.Hooks), "workspaceTrusted", loaded.Trusted)

	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: true, Change: protocol.TextDocumentSyncKindFull,
				Save: &protocol.SaveOptions{}},
			CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix}},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: []string{
				commandAllow, commandDeny, commandTrustWorkspace, commandMakeExecutable, commandRunHook,
				commandRunTests, commandToggleHook}},
			HoverProvider:      true,
			CompletionProvider: &protocol.CompletionOptions{TriggerCharacters: []string{`"`}},
			CodeLensProvider:   &protocol.CodeLensOptions{},
			// Workspace folders the editor adds fire DirectoryAdded.
			Workspace: &protocol.ServerCapabilitiesWorkspace{WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{
				Supported: true, ChangeNotifications: true}},
		},
		ServerInfo: &protocol.ServerInfo{Name: "wavehooks", Version: s.opts.Version},
	}, nil
}

// The range of initializationOptions.askTimeoutSeconds (docs/protocol-limits.md).
// Below a second no one can answer; beyond a day an ask is forgotten, not
// pending; and a float64 of seconds beyond about 9.2e9 overflows a
// time.Duration to a negative value, which would deny every ask at once.
const (
	minAskTimeoutSeconds = 1
	maxAskTimeoutSeconds = 24 * 60 * 60
)

// askTimeout converts askTimeoutSeconds, refusing what is out of range
// rather than rounding it to a timeout the user did not ask for.
func askTimeout(seconds float64) (time.Duration, error) {
	if math.IsNaN(seconds) || seconds < minAskTimeoutSeconds || seconds > maxAskTimeoutSeconds {
		return 0, badParam("initializationOptions.askTimeoutSeconds", "must be a number of seconds from %d to %d, not %v",
			minAskTimeoutSeconds, maxAskTimeoutSeconds, seconds)
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// projectRoot finds the workspace root the client names, and checks it is a
// directory: nothing the client sends becomes a path unchecked.
func projectRoot(p *initializeParams) (string, error) {
	field, raw := "rootUri", p.RootURI
	if raw == "" && len(p.WorkspaceFolders) > 0 {
		field, raw = "workspaceFolders[0].uri", p.WorkspaceFolders[0].URI
	}
	var root string
	switch {
	case raw != "":
		path, err := filePath(protocol.DocumentURI(raw))
		if err != nil {
			return "", badParam(field, "%v", err)
		}
		root = path
	case p.RootPath != "":
		field, root = "rootPath", p.RootPath
	default:
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return wd, nil
	}
	if !filepath.IsAbs(root) {
		return "", badParam(field, "must be an absolute path, not %q", root)
	}
	root = filepath.Clean(root)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return "", badParam(field, "%q is not a directory", root)
	}
	return root, nil
}

func (s *Server) initialized(context.Context, *json.RawMessage) {
	s.setState(stateRunning)
	s.startWatching()
	s.startRunLogFeed()
	s.watchChangedFiles(s.watch)
	s.rediagnose()
	s.reportDrift(s.engine.Config())
	s.notify(notifyHooksChanged, s.hooksState(s.engine.Loaded()))
	s.background(func() {
		s.askTrustIfNeeded(s.connCtx)
	})
}

func (s *Server) shutdown(context.Context, *json.RawMessage) (any, error) {
	s.setState(stateShuttingDown)
	return nil, nil
}

// exit ends the connection; Serve then returns 0 if shutdown came first.
func (s *Server) exit() {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	select {
	case <-s.exited:
		return
	default:
	}
	if s.state == stateShuttingDown {
		s.exitCode = 0
	} else {
		s.exitCode = 1
	}
	close(s.exited)
}

// loadBuffers reads every settings file with the editor's unsaved text for
// open files, which is diagnosed but never run (what runs is loaded by the
// host's workspace, internal/host).
func (s *Server) loadBuffers() *settings.Config {
	return settings.Load(s.paths, s.docs.texts())
}
