package settings

import (
	"encoding/json"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/shellread"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// IfRule is a hook's "if" condition: one permission rule in Claude Code's
// syntax — a tool name alone ("Bash", "mcp__github__create_issue") or with an
// argument pattern ("Bash(git *)", "Edit(*.ts)") — that the tool call must
// match for the hook to run. It narrows a matcher group to single hooks.
// The semantics follow Claude Code 2.1.330 (docs/parity.md, "Claude Code
// compatibility details"): only tool events evaluate it; the tool name is
// compared exactly; the pattern is checked against the command of Bash
// (each subcommand), the file of Read, Edit, Write and NotebookEdit
// (gitignore-style globs), and the pattern of Glob and Grep; on any other
// tool a rule with a pattern never matches.
type IfRule struct {
	raw     string
	tool    string
	content string // the argument pattern, "" when the rule names only the tool
	// malformed rules (unbalanced parentheses) never match, as in Claude Code,
	// which reads them as a tool name that no tool has.
	malformed bool
}

// ifEvents are the events that evaluate "if"; on the others a hook with an
// "if" never runs.
var ifEvents = map[event.Event]bool{event.PreToolUse: true, event.PostToolUse: true, event.PostToolUseFailure: true, event.PermissionRequest: true}

// pathTools name the tool-input field whose file an argument pattern is
// matched against.
var pathTools = map[string]string{"Read": "file_path", "Write": "file_path", "Edit": "file_path", "NotebookEdit": "notebook_path"}

// patternTools are the tools whose "pattern" input a rule's pattern is
// compared with, as a wildcard.
var patternTools = map[string]bool{"Glob": true, "Grep": true}

// ParseIfRule reads a rule the way Claude Code does: "Tool" or
// "Tool(pattern)", where "Tool()" and "Tool(*)" mean the tool alone and \(
// \) and \\ escape parentheses and backslashes in the pattern.
func ParseIfRule(s string) *IfRule {
	r := &IfRule{raw: s}
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	switch {
	case open < 0 && closing < 0:
		r.tool = s
		return r
	case open < 0 || closing <= open || closing != len(s)-1 || strings.ContainsAny(s[:open], "()") || s[:open] == "":
		r.malformed = true
		return r
	}
	r.tool = s[:open]
	raw := s[open+1 : closing]
	if raw == "" || raw == "*" {
		return r
	}
	raw = strings.ReplaceAll(strings.ReplaceAll(raw, `\(`, "("), `\)`, ")")
	r.content = strings.ReplaceAll(raw, `\\`, `\`)
	return r
}

// String returns the rule as written.
func (r *IfRule) String() string { return r.raw }

// Problems says what is wrong with a rule as written for a hook of event ev,
// for diagnostics: each problem with whether the hook then never runs.
func (r *IfRule) Problems(ev event.Event) (problems []string, neverRuns bool) {
	switch {
	case r.malformed:
		return []string{fmt.Sprintf(`"if" must be one permission rule like "Bash(git *)" or "Edit(*.ts)"; %q is malformed, so this hook never runs`, r.raw)}, true
	case strings.TrimSpace(r.raw) == "":
		return nil, false
	case !ifEvents[ev]:
		return []string{fmt.Sprintf(`"if" is only evaluated on tool events (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest); on %s a hook with "if" never runs`, ev)}, true
	}
	if known := knownToolFold(r.tool); known != "" && known != r.tool {
		return []string{fmt.Sprintf(`"if" compares tool names exactly: %q matches no tool; did you mean %q?`, r.tool, known)}, true
	}
	if s := r.suggestedTool(); s != "" {
		return []string{fmt.Sprintf(`"if" names %q, which is no tool the agent has; did you mean %q? This hook never runs`, r.tool, s)}, true
	}
	if strings.HasPrefix(r.tool, "mcp__") && (strings.Contains(r.tool, "*") || strings.Count(r.tool, "__") < 2) {
		problems = append(problems, fmt.Sprintf(`"if" compares tool names exactly, so %q matches no tool; to take every tool of a server, use the group's matcher (e.g. "mcp__server__.*") and leave "if" out`, r.tool))
		neverRuns = true
	}
	if strings.Contains(r.content, ") ") && strings.ContainsAny(r.content, "|&") && strings.Contains(r.content, "(") {
		problems = append(problems, `"if" holds exactly one rule: "||" and "&&" between rules are not supported; write one hook per rule`)
	}
	if r.content != "" && !checksArguments(r.tool) {
		problems = append(problems, fmt.Sprintf(`"if" can only check the arguments of Bash, PowerShell, Read, Edit, Write, NotebookEdit, Glob and Grep: with a pattern, %q never matches a %s call; write just %q`, r.raw, r.tool, r.tool))
		neverRuns = true
	}
	return problems, neverRuns
}

// suggestedTool is the tool a rule naming no tool the agent has most likely
// means (another agent's name, a typo: write_file → Write), or "" when the
// rule's tool is one, an MCP name, or like no tool.
func (r *IfRule) suggestedTool() string {
	if r.malformed || r.tool == "" || slices.Contains(AgentTools, r.tool) || strings.HasPrefix(r.tool, "mcp__") {
		return ""
	}
	if known := knownToolFold(r.tool); known != "" {
		return known
	}
	return suggestTool(r.tool, AgentTools)
}

// Correction is the rule with its tool name corrected, for the quick fix of
// a rule that names no tool ("write_file(*.env)" → "Write(*.env)"), or ""
// when there is no likely correction.
func (r *IfRule) Correction() string {
	s := r.suggestedTool()
	i := strings.Index(r.raw, r.tool)
	if s == "" || i < 0 {
		return ""
	}
	return r.raw[:i] + s + r.raw[i+len(r.tool):]
}

func checksArguments(tool string) bool {
	return tool == "Bash" || tool == "PowerShell" || pathTools[tool] != "" || patternTools[tool]
}

// knownToolFold returns the known tool whose name equals tool but for case,
// or "" when there is none.
func knownToolFold(tool string) string {
	for _, t := range KnownTools {
		if strings.EqualFold(t, tool) {
			return t
		}
	}
	return ""
}

// Match reports whether a tool call of in matches the rule, and says why in
// words for the run history. projectRoot anchors patterns that start with "/".
func (r *IfRule) Match(in *event.Input, projectRoot string) (bool, string) {
	switch {
	case r.malformed:
		return false, fmt.Sprintf("the rule %q is malformed and matches nothing", r.raw)
	case strings.TrimSpace(r.raw) == "":
		return true, "the rule is empty"
	case !ifEvents[in.Event]:
		return false, fmt.Sprintf("%q is only evaluated on tool events, not %s", r.raw, in.Event)
	case r.tool != in.ToolName:
		return false, fmt.Sprintf("%q names %s, the tool is %s", r.raw, r.tool, in.ToolName)
	case r.content == "":
		return true, fmt.Sprintf("%q names the tool %s", r.raw, r.tool)
	}
	var input map[string]json.RawMessage
	_ = json.Unmarshal(in.ToolInput, &input)
	str := func(key string) (string, bool) {
		var s string
		raw, ok := input[key]
		return s, ok && json.Unmarshal(raw, &s) == nil
	}
	switch {
	case r.tool == "Bash":
		cmd, ok := str("command")
		if !ok {
			return false, "the tool input has no command"
		}
		return matchBash(r.content, cmd)
	case r.tool == "PowerShell":
		cmd, ok := str("command")
		if ok && wildcardMatch(r.content, cmd, true, true) {
			return true, fmt.Sprintf("the command matches %s", r.content)
		}
		return false, fmt.Sprintf("the command does not match %s", r.content)
	case pathTools[r.tool] != "":
		file, ok := str(pathTools[r.tool])
		if !ok || file == "" {
			return false, "the tool input has no " + pathTools[r.tool]
		}
		cwd := in.Cwd
		if cwd == "" {
			cwd = projectRoot
		}
		if matchPath(r.content, file, cwd, projectRoot) {
			return true, fmt.Sprintf("%s matches %s", file, r.content)
		}
		return false, fmt.Sprintf("%s does not match %s", file, r.content)
	case patternTools[r.tool]:
		pat, _ := str("pattern")
		if wildcardMatch(r.content, pat, false, false) {
			return true, fmt.Sprintf("the pattern %q matches %s", pat, r.content)
		}
		return false, fmt.Sprintf("the pattern %q does not match %s", pat, r.content)
	}
	return false, fmt.Sprintf("the arguments of %s cannot be checked, so a rule with a pattern never matches", r.tool)
}

// matchBash checks a Bash command against a rule's pattern as Claude Code
// does: every subcommand (split at &&, ||, ;, |, newlines, and taken out of
// $(…) and backticks), with leading VAR=value assignments stripped, is
// compared with the pattern; "git:*" is the legacy prefix form. A command
// that cannot be parsed runs the hook (the filter fails open), and so does
// one with $(…), backticks or $VAR for a pattern that says more than the
// command name.
func matchBash(pattern, command string) (bool, string) {
	cmds, complex, err := shellread.SplitShell(command)
	if err != nil {
		return true, "the command could not be parsed (" + err.Error() + "), and the filter fails open"
	}
	prefix, legacy := strings.CutSuffix(pattern, ":*")
	if complex {
		simple := legacy && !strings.ContainsAny(prefix, " \t") || !legacy && nameStarRE.MatchString(pattern)
		if !simple {
			return true, "the command has $(…), backticks or $VAR, and a pattern that names more than the command runs the hook then"
		}
	}
	for _, c := range cmds {
		var ok bool
		if legacy {
			ok = c == prefix || strings.HasPrefix(c, prefix+" ") || c == "xargs "+prefix || strings.HasPrefix(c, "xargs "+prefix+" ")
		} else {
			ok = wildcardMatch(pattern, c, false, true) || wildcardMatch("xargs "+pattern, c, false, true)
		}
		if ok {
			return true, fmt.Sprintf("the subcommand %q matches %s", c, pattern)
		}
	}
	return false, fmt.Sprintf("no subcommand of %q matches %s", command, pattern)
}

// nameStarRE is a pattern that names just a command: "rm *", "rm*".
var nameStarRE = regexp.MustCompile(`^[^\s*?\[]+\s?\*$`)

var blanksRE = regexp.MustCompile(`[ \t]+`)

// wildcardMatch compares s with a permission pattern: the whole of s, "*"
// matching any run of characters (newlines included), "\*" a star; a
// pattern ending in " *" with no other star also matches without the space
// and what follows ("git *" matches "git"). normBlanks treats runs of blanks
// as one space on both sides.
func wildcardMatch(pattern, s string, foldCase, normBlanks bool) bool {
	if strings.ContainsRune(pattern, 0) {
		return false
	}
	p := strings.TrimSpace(pattern)
	if normBlanks {
		p, s = blanksRE.ReplaceAllString(p, " "), blanksRE.ReplaceAllString(s, " ")
	}
	var b strings.Builder
	stars := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p) && (p[i+1] == '*' || p[i+1] == '\\'):
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+2]))
			i++
		case c == '*':
			stars++
			b.WriteString(".*")
			for i+1 < len(p) && p[i+1] == '*' {
				i++
			}
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	body := b.String()
	if stars == 1 && strings.HasSuffix(body, " .*") {
		body = strings.TrimSuffix(body, " .*") + "( .*)?"
	}
	flags := "(?s)"
	if foldCase {
		flags = "(?si)"
	}
	re, err := regexp.Compile(flags + "^" + body + "$")
	return err == nil && re.MatchString(s)
}

// matchPath checks a file against a file-tool pattern, gitignore style:
// "//abs" is an absolute path, "~/x" is under the home directory, "/x" is
// under the project root, anything else is relative to cwd; a pattern
// without a slash ("*.ts") matches at any depth, and a directory matches
// everything under it ("src/**", "build"). As in Claude Code, a pattern
// that starts with "*" or has no "*" is also compared with the whole path.
func matchPath(pattern, file, cwd, projectRoot string) bool {
	if !filepath.IsAbs(file) {
		file = filepath.Join(cwd, file)
	}
	file = filepath.Clean(file)
	root, rel := cwd, pattern
	switch {
	case strings.HasPrefix(pattern, "//") && runtime.GOOS == "windows":
		root, rel, file = "/", drivePattern(pattern[1:]), drivePosix(file)
	case strings.HasPrefix(pattern, "//"):
		root, rel = "/", pattern[1:]
	case strings.HasPrefix(pattern, "~/"):
		home, _ := os.UserHomeDir()
		root, rel = home, pattern[1:]
	case strings.HasPrefix(pattern, "/"):
		root = projectRoot
	case strings.HasPrefix(pattern, "./"):
		rel = pattern[2:]
	}
	if d, err := filepath.Rel(root, file); err == nil && d != ".." && !strings.HasPrefix(d, "../") && d != "." {
		if ignoreMatch(rel, filepath.ToSlash(d)) {
			return true
		}
	}
	t := strings.TrimSpace(pattern)
	if strings.HasPrefix(t, "*") || !strings.Contains(t, "*") {
		return wildcardMatch(pattern, file, false, false)
	}
	return false
}

// drivePosix is a Windows drive path in the form "//abs" patterns are
// matched against there: C:\Users\x is /c/Users/x (the drive letter in lower
// case: Windows drive letters are case-blind). Other paths (UNC shares) are
// returned as they are, and no "//abs" pattern reaches them.
func drivePosix(file string) string {
	if len(file) >= 2 && file[1] == ':' && isDriveLetter(file[0]) {
		return "/" + strings.ToLower(file[:1]) + strings.ReplaceAll(file[2:], `\`, "/")
	}
	return file
}

// drivePattern is an "//abs" pattern (without its first slash) in the form
// drivePosix gives files: /C:/x, /c:/x and /c/x all name the C: drive's \x,
// so a Windows user writes the absolute path either way. A pattern that
// names no drive (//Users/x) matches nothing on Windows, where no file is
// absolute without one.
func drivePattern(rel string) string {
	switch {
	case len(rel) >= 3 && isDriveLetter(rel[1]) && rel[2] == ':' && (len(rel) == 3 || rel[3] == '/'):
		return "/" + strings.ToLower(rel[1:2]) + rel[3:]
	case len(rel) >= 2 && isDriveLetter(rel[1]) && (len(rel) == 2 || rel[2] == '/'):
		return "/" + strings.ToLower(rel[1:2]) + rel[2:]
	}
	return rel
}

// isDriveLetter reports whether c is an ASCII letter, what a drive is named.
func isDriveLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// ignoreMatch reports whether a gitignore-style pattern covers path (slash
// separated, relative to the pattern's root): the path itself or one of
// the directories it is in.
func ignoreMatch(pattern, path string) bool {
	dirOnly := strings.HasSuffix(pattern, "/")
	pattern = strings.TrimSuffix(pattern, "/")
	anchored := strings.Contains(pattern, "/")
	pattern = strings.TrimPrefix(pattern, "/")
	if pattern == "" {
		return false
	}
	body := globRegexp(pattern)
	if !anchored {
		body = "(?:.*/)?" + body
	}
	re, err := regexp.Compile("^" + body + "$")
	if err != nil {
		return false
	}
	parts := strings.Split(path, "/")
	for i := 1; i <= len(parts); i++ {
		if dirOnly && i == len(parts) {
			break
		}
		if re.MatchString(strings.Join(parts[:i], "/")) {
			return true
		}
	}
	return false
}

// globRegexp turns a gitignore glob into a regular expression: "*" and "?"
// stay within one path segment, "**" crosses segments, [a-z] is a class.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '\\' && i+1 < len(g):
			b.WriteString(regexp.QuoteMeta(g[i+1 : i+2]))
			i++
		case c == '[':
			if end := strings.IndexByte(g[i+1:], ']'); end > 0 {
				class := g[i+1 : i+1+end]
				if class[0] == '!' {
					class = "^" + class[1:]
				}
				b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
				i += end + 1
				continue
			}
			b.WriteString(`\[`)
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

func IfRaw(r *IfRule) string {
	if r == nil {
		return ""
	}
	return r.raw
}
