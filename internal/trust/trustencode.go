package trust

import (
	"encoding/binary"
	"github.com/wavehooks/wavehooks/internal/settings"
	"path/filepath"
)

// This file writes what the trust hash covers as one canonical byte string.
// Every field is written, always, in a fixed order, each string with its
// length in front, each list with its count in front, each optional value
// with a byte that says whether it is there: no text a repository writes
// can end one field or record and begin another, so two different
// configurations never share an encoding (FuzzTrustEncoding), and a field
// added to Hook or Settings without being written here fails
// TestTrustEncodingCoversEveryField.

// trustVersion begins every encoding. It changes whenever what the hash
// covers or how it is written changes, so that no trust given under another
// encoding can hold for this one: the user is asked again, once.
//
// v1 hashed hooks only, v2 added settings and files (both joined with
// control bytes, which a repository could forge); v3 is this encoding; v4
// adds each hook's "enabled" (Disabled).
const trustVersion = "wavehooks-trust/v4"

// trustEncoder appends the canonical encoding of values to b.
type trustEncoder struct{ b []byte }

func (e *trustEncoder) uint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }

func (e *trustEncoder) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *trustEncoder) boolean(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// optBool writes an unset, false or true setting as three different values.
func (e *trustEncoder) optBool(p *bool) {
	switch {
	case p == nil:
		e.b = append(e.b, 0)
	case !*p:
		e.b = append(e.b, 1)
	default:
		e.b = append(e.b, 2)
	}
}

// strs writes a list, telling a nil list (exec form absent) from an empty one.
func (e *trustEncoder) strs(ss []string) {
	e.boolean(ss != nil)
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// optStr writes a value that may be absent (a nil matcher or rule, no MCP input).
func (e *trustEncoder) optStr(present bool, s string) {
	e.boolean(present)
	e.str(s)
}

// hook writes every field of a workspace hook that changes what runs, when,
// with what, for how long, or what the user sees while it runs. File is
// written relative to the project root; CommandRange (where the command is
// in its file) changes nothing and is the one field left out.
func (e *trustEncoder) hook(h *settings.Hook, root string) {
	e.str(string(h.Event))
	e.str(h.Source.String())
	e.str(relTo(root, h.File))
	e.optStr(h.Matcher != nil, settings.MatcherRaw(h.Matcher))
	e.str(h.Type)
	e.str(h.Command)
	e.uint(uint64(h.Timeout))
	e.strs(h.Args)
	e.str(h.Cwd)
	e.strs(h.Env)
	e.boolean(h.Async)
	e.str(h.StatusMessage)
	e.optStr(h.If != nil, settings.IfRaw(h.If))
	o := &h.HookOptions
	e.str(o.URL)
	e.boolean(o.Headers != nil)
	e.uint(uint64(len(o.Headers)))
	for _, hd := range o.Headers {
		e.str(hd.Name)
		e.str(hd.Value)
	}
	e.strs(o.AllowedEnvVars)
	e.str(o.Prompt)
	e.str(o.Model)
	e.boolean(o.ContinueOnBlock)
	e.str(o.Server)
	e.str(o.Tool)
	e.optStr(o.Input != nil, string(o.Input))
	e.boolean(o.Once)
	e.str(o.Shell)
	e.boolean(o.AsyncRewake)
	e.str(o.OnFailure)
	e.boolean(h.Disabled)
}

// agentSection appends what other agents' hook files add (issue #40) after
// the rest of the encoding, as encodeTests does, and only when there is
// any, so that a workspace without them keeps the hash (and the trust) it
// had: a marker, then each workspace hook's event as its agent's file names
// it (which decides the stdin it reads) by its index among the hooks
// encoded, then each counted file's importAgentHooks by its index.
func (e *trustEncoder) agentSection(hooks []*settings.Hook, files []*settings.File) {
	var hookIdx, fileIdx []int
	for i, h := range hooks {
		if h.AgentEvent != "" {
			hookIdx = append(hookIdx, i)
		}
	}
	for i, f := range files {
		if f.Settings.ImportAgentHooks != nil {
			fileIdx = append(fileIdx, i)
		}
	}
	if len(hookIdx) == 0 && len(fileIdx) == 0 {
		return
	}
	e.str("agent hooks")
	e.uint(uint64(len(hookIdx)))
	for _, i := range hookIdx {
		e.uint(uint64(i))
		e.str(hooks[i].AgentEvent)
	}
	e.uint(uint64(len(fileIdx)))
	for _, i := range fileIdx {
		e.uint(uint64(i))
		var names []string
		for _, a := range files[i].Settings.ImportAgentHooks {
			names = append(names, string(a))
		}
		e.boolean(true)
		e.uint(uint64(len(names)))
		for _, n := range names {
			e.str(n)
		}
	}
}

// settings writes every setting of one workspace settings file that counts.
func (e *trustEncoder) settings(f *settings.File, root string) {
	e.str(f.Source.String())
	e.str(relTo(root, f.Path))
	s := &f.Settings
	e.optBool(s.DisableAllHooks)
	e.str(s.TranscriptFormat)
	e.optBool(s.ImportClaudeHooks)
	e.optBool(s.ImportVSCodeHooks)
	e.optBool(s.AllowManagedHooksOnly)
	e.strs(s.AllowedHTTPHookURLs)
	e.strs(s.HTTPHookAllowedEnvVars)
}

// file writes a covered file: its name and its state (contents' hash, or why there is none).
func (e *trustEncoder) file(f *fileState) {
	e.str(f.Rel)
	e.str(f.State)
}

// encodeTrust is the canonical encoding of everything a workspace
// contributes: its hooks in configuration order (which decides how their
// answers combine), the settings of each of its files that counts, and the
// files its hooks run.
func encodeTrust(full *settings.Config, files []fileState) []byte {
	root := full.Paths.ProjectRoot
	e := &trustEncoder{}
	e.str(trustVersion)
	var hooks []*settings.Hook
	for i := range full.Hooks {
		if full.Hooks[i].Source.FromWorkspace() {
			hooks = append(hooks, &full.Hooks[i])
		}
	}
	e.uint(uint64(len(hooks)))
	for _, h := range hooks {
		e.hook(h, root)
	}
	var counted []*settings.File
	for i := range full.Files {
		if settingsCount(full, &full.Files[i]) {
			counted = append(counted, &full.Files[i])
		}
	}
	e.uint(uint64(len(counted)))
	for _, f := range counted {
		e.settings(f, root)
	}
	e.uint(uint64(len(files)))
	for i := range files {
		e.file(&files[i])
	}
	e.agentSection(hooks, counted)
	return e.b
}

// settingsCount reports whether a settings file's settings would take
// effect once the workspace is trusted: a workspace file of ours, or one of
// Claude Code's when importClaudeHooks is on (VS Code's hook files have no
// settings of ours).
func settingsCount(cfg *settings.Config, f *settings.File) bool {
	return f.Source.FromWorkspace() && f.Source != settings.SourceVSCode && f.Source.Agent() == "" && (!f.Source.IsClaude() || cfg.ImportClaudeHooks)
}

// relTo is p relative to root when it lies in it, else p.
func relTo(root, p string) string {
	if root != "" && within(root, p) {
		if rel, err := filepath.Rel(root, p); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// encodeTests appends the workspace's hook test files (trusttests.go) to
// the encoding b of its hooks, settings and scripts: nothing when it has
// none, so that such a workspace keeps the hash (and the trust) it had;
// else a marker, their count and each file. The encoding before is
// complete (every field length-prefixed), so what follows it cannot be
// read as part of it.
func encodeTests(b []byte, tests []fileState) []byte {
	if len(tests) == 0 {
		return b
	}
	e := &trustEncoder{b: b}
	e.str("hook tests")
	e.uint(uint64(len(tests)))
	for i := range tests {
		e.file(&tests[i])
	}
	return e.b
}
