package shellread

import (
	"path/filepath"
	"regexp"
	"strings"
)

// This file reads what a command line runs: the program once the words
// before it (assignments, env, wrappers such as timeout or sudo, shell
// keywords) are set aside, and the script or modules an interpreter is
// given. Trust (which workspace files a hook runs) and lint (a script that
// is missing) both read commands through it, so they agree.

// shellPrefixWords are words that run the rest of a simple command (or
// introduce it) without being the program themselves.
var shellPrefixWords = map[string]bool{"!": true, "{": true, "if": true, "then": true, "else": true, "elif": true,
	"do": true, "while": true, "until": true, "exec": true, "command": true, "nohup": true, "time": true}

// wrapper describes a program that runs the command in the rest of its
// words: its options that take a value, and how many words (a duration)
// come before the command.
type wrapper struct {
	valued     map[string]bool
	positional int
}

// wrappers are the programs that run a command given them (timeout 5 ./x.sh).
var wrappers = map[string]wrapper{
	"timeout": {valued: set("-s", "--signal", "-k", "--kill-after"), positional: 1},
	"nice":    {valued: set("-n", "--adjustment")},
	"ionice":  {valued: set("-c", "--class", "-n", "--classdata", "-p", "-P", "-u")},
	"stdbuf":  {valued: set("-i", "-o", "-e", "--input", "--output", "--error")},
	"setsid":  {},
	"xargs": {valued: set("-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "--max-args",
		"-P", "--max-procs", "-s", "--max-chars")},
	"sudo": {valued: set("-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p",
		"--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout")},
	"doas":       {valued: set("-u", "-C")},
	"caffeinate": {valued: set("-t", "-w")},
}

// StripPrefixWords drops what comes before the program of a simple command:
// variable assignments, env with its options and assignments, wrappers
// with their options (timeout 5, nice -n 10, xargs -0, sudo -u x), and (in a
// shell command) keywords such as if, exec and time.
func StripPrefixWords(words []string, shell bool) []string {
	for len(words) > 0 {
		w := words[0]
		if wr, ok := wrappers[filepath.Base(w)]; ok && len(words) > 1 {
			words = words[1:]
			for len(words) > 0 && strings.HasPrefix(words[0], "-") && words[0] != "-" {
				opt, _, hasValue := strings.Cut(words[0], "=")
				words = words[1:]
				if wr.valued[opt] && !hasValue && len(words) > 0 {
					words = words[1:]
				}
			}
			words = words[min(wr.positional, len(words)):]
			continue
		}
		switch {
		case shell && (shellPrefixWords[w] || AssignRE.MatchString(w)):
			words = words[1:]
		case filepath.Base(w) == "env" && len(words) > 1:
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || AssignRE.MatchString(words[0])) {
				if words[0] == "-u" || words[0] == "--unset" || words[0] == "-C" || words[0] == "--chdir" {
					words = words[1:]
				}
				if len(words) > 0 {
					words = words[1:]
				}
			}
		default:
			return words
		}
	}
	return words
}

// interpreter describes a program that runs a script file named by its
// first argument that is not an option.
type interpreter struct {
	// lang is its family, for the options that load modules.
	lang string
	// inline options take the code itself (sh -c, python -c, node -e):
	// then there is no script file.
	inline map[string]bool
	// inlineLetters are the short options that do the same when clustered (bash -ec '...').
	inlineLetters string
	// valued options take the next word as their value.
	valued map[string]bool
	// modules are the options that load a module (node -r, python -m),
	// their value attached with = or in the next word.
	modules map[string]bool
	// subcommand is skipped first when present (deno run x.ts, bun run x.ts).
	subcommand string
	// shell is set for the shells, whose inline code is a command line too.
	shell bool
}

func set(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	shellInterp  = interpreter{lang: "sh", inline: set("-c"), inlineLetters: "c", valued: set("-o", "+o", "-O", "+O"), shell: true}
	pythonInterp = interpreter{lang: "python", inline: set("-c"), inlineLetters: "c", valued: set("-W", "-X", "--check-hash-based-pycs"),
		modules: set("-m")}
	nodeInterp = interpreter{lang: "node", inline: set("-e", "--eval", "-p", "--print"),
		valued:  set("--env-file", "-C", "--conditions"),
		modules: set("-r", "--require", "--import", "--loader", "--experimental-loader")}
	perlInterp = interpreter{lang: "perl", inline: set("-e", "-E"), inlineLetters: "eE", valued: set("-x")}
	rubyInterp = interpreter{lang: "ruby", inline: set("-e"), inlineLetters: "e", valued: set("-I", "-C")}
	phpInterp  = interpreter{inline: set("-r"), valued: set("-c", "-d", "-z")}
	denoInterp = interpreter{inline: set("-e", "--eval"), subcommand: "run"}
	bunInterp  = interpreter{inline: set("-e", "--eval", "-p", "--print"), subcommand: "run"}
	luaInterp  = interpreter{inline: set("-e"), inlineLetters: "e", valued: set("-l")}
)

var versionedInterpRE = regexp.MustCompile(`^(python|pypy|lua|ruby|perl|php)[0-9.]*$`)

// interpreterOf returns how the named program takes its script, if it is an interpreter.
func interpreterOf(name string) (interpreter, bool) {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish":
		return shellInterp, true
	case "node", "nodejs", "tsx", "ts-node":
		return nodeInterp, true
	case "deno":
		return denoInterp, true
	case "bun":
		return bunInterp, true
	case "luajit":
		return luaInterp, true
	}
	if m := versionedInterpRE.FindStringSubmatch(name); m != nil {
		switch m[1] {
		case "python", "pypy":
			return pythonInterp, true
		case "lua":
			return luaInterp, true
		case "perl":
			return perlInterp, true
		case "ruby":
			return rubyInterp, true
		default:
			return phpInterp, true
		}
	}
	return interpreter{}, false
}

// ScriptRun is what an interpreter command runs, as InterpreterScript reads it.
type ScriptRun struct {
	// Name is the program as written (python3, node).
	Name string
	// Lang is the interpreter's family: "sh", "python", "node", "perl", "ruby" or "".
	Lang string
	// Script is the script file it runs, "" when none is named.
	Script string
	// Inline are a shell's commands given with -c: they may run workspace files in turn.
	Inline string
	// FromStdin reports that it reads its script from its input (sh, bash -s, python3 -).
	FromStdin bool
	// Modules are what node -r/--require/--import/--loader, perl -M/-m,
	// ruby -r and python -m load; includes are perl's -I directories.
	Modules, Includes []string
	// Node reports that the script is found as node finds it (x, x.js, x/index.js).
	Node bool
	// Index is where script is in the words, 0 when there is none.
	Index int
}

// InterpreterScript returns what an interpreter command runs (bash x.sh,
// python3 -u x.py, node x.js, deno run x.ts, source x.sh, . x.sh), the
// commands of a shell given them (sh -c '...'), the modules it loads, and
// whether it reads its script from its input; nothing when the program is
// no interpreter or runs code given inline in another language (python -c,
// node -e).
func InterpreterScript(words []string, shell bool) ScriptRun {
	name := filepath.Base(words[0])
	run := ScriptRun{Name: name}
	if shell && (words[0] == "source" || words[0] == ".") {
		if len(words) > 1 {
			run.Script, run.Index = words[1], 1
		}
		return run
	}
	in, ok := interpreterOf(name)
	if !ok {
		return run
	}
	run.Lang = in.lang
	i := 1
	if in.subcommand != "" && i < len(words) && words[i] == in.subcommand {
		i++
	}
	stdinFlag := false
	for ; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if w == "-" || !(strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+") && in.valued[w]) {
			break
		}
		optName, optValue, hasValue := strings.Cut(w, "=")
		if in.modules[optName] || in.lang == "perl" && (strings.HasPrefix(w, "-M") || strings.HasPrefix(w, "-m")) ||
			in.lang == "ruby" && strings.HasPrefix(w, "-r") {
			m := optValue
			switch {
			case in.lang == "perl" || in.lang == "ruby" && w != "-r":
				m = w[2:]
			case !hasValue:
				m = ""
			}
			if m == "" && i+1 < len(words) {
				i++
				m = words[i]
			}
			if m != "" {
				run.Modules = append(run.Modules, m)
			}
			if in.lang == "python" { // python -m: the module is the script, the rest its arguments
				return run
			}
			continue
		}
		if in.lang == "perl" && strings.HasPrefix(w, "-I") {
			inc := w[2:]
			if inc == "" && i+1 < len(words) {
				i++
				inc = words[i]
			}
			run.Includes = append(run.Includes, inc)
			continue
		}
		if in.inline[optName] || isFlagCluster(w) && strings.ContainsAny(w[1:], in.inlineLetters) {
			if in.shell && i+1 < len(words) {
				run.Inline = words[i+1] // the shell's commands: they may run workspace files in turn
			}
			return run
		}
		if in.shell && isFlagCluster(w) && strings.ContainsRune(w[1:], 's') {
			stdinFlag = true // sh -s: the script is read from the input, the words are its arguments
		}
		if in.valued[w] {
			i++
		}
	}
	switch {
	case stdinFlag || i >= len(words) || words[i] == "-":
		run.FromStdin = true
	default:
		run.Script, run.Index = words[i], i
		run.Node = in.lang == "node"
	}
	return run
}

// isFlagCluster reports whether w is a few single-letter options written
// together (-ec, -Bc), as opposed to one option with its value (-Wignore).
func isFlagCluster(w string) bool {
	if len(w) < 2 || len(w) > 4 || w[0] != '-' || w[1] == '-' {
		return false
	}
	for _, r := range w[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
