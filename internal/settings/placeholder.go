package settings

import (
	"fmt"
	"strings"
)

// Path placeholders of Claude Code's hook commands. In the exec form
// (command + args) no shell expands anything, so Claude Code substitutes
// ${CLAUDE_PROJECT_DIR} into the program and each argument itself, as plain
// text; so do we, and ${WAVE_PROJECT_DIR} likewise. In the shell form the
// shell expands them from the environment, where both are set. Only the
// braced spelling is substituted, as in Claude Code: "$CLAUDE_PROJECT_DIR"
// reaches an exec-form program as written.
var projectDirPlaceholders = []string{"${CLAUDE_PROJECT_DIR}", "${WAVE_PROJECT_DIR}"}

// pluginPlaceholders only mean something in a Claude Code plugin's hooks,
// which wavehooks does not load: a hook naming one cannot find its script.
var pluginPlaceholders = []string{"${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PLUGIN_DATA}"}

// PluginPlaceholder returns the plugin placeholder a hook's command or
// arguments name, or "".
func PluginPlaceholder(h *Hook) string {
	for _, ph := range pluginPlaceholders {
		if strings.Contains(h.Command, ph) {
			return ph
		}
		for _, a := range h.Args {
			if strings.Contains(a, ph) {
				return ph
			}
		}
	}
	return ""
}

// ErrPluginPlaceholder is Claude Code's refusal of such a hook, in its words.
func ErrPluginPlaceholder(ph string) error {
	return fmt.Errorf("hook command references %s but the hook is not associated with a plugin; "+
		"this variable is only available in hooks defined in a plugin's hooks/hooks.json file, not in settings files", ph)
}

// substituteProjectDir puts projectDir in place of the project-directory
// placeholders of s.
func substituteProjectDir(s, projectDir string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	for _, ph := range projectDirPlaceholders {
		s = strings.ReplaceAll(s, ph, projectDir)
	}
	return s
}

// ExecForm is the program and arguments an exec-form hook runs, with its
// placeholders substituted.
func ExecForm(h *Hook, projectDir string) (string, []string) {
	args := make([]string, len(h.Args))
	for i, a := range h.Args {
		args[i] = substituteProjectDir(a, projectDir)
	}
	return substituteProjectDir(h.Command, projectDir), args
}
