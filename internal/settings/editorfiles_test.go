package settings_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// The editors are written in other languages and keep their own list of
// the workspace's settings files (to start the server, and to treat the
// files as JSON with comments); Paths.SettingsFiles is the list. Each
// editor must name every workspace file of it, so that none drifts.
func TestEditorsKnowEveryWorkspaceSettingsFile(t *testing.T) {
	root := filepath.FromSlash("/project")
	var rels []string
	for _, f := range (settings.Paths{ProjectRoot: root}).SettingsFiles() {
		if rel, err := filepath.Rel(root, f.Path); err == nil && filepath.IsLocal(rel) {
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	require.Len(t, rels, 4, "the project's and Claude Code's settings and local settings")

	var manifest struct {
		ActivationEvents []string `json:"activationEvents"`
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "editors", "vscode", "package.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &manifest))
	nvim, err := os.ReadFile(filepath.Join("..", "..", "editors", "nvim", "lua", "wavehooks", "files.lua"))
	require.NoError(t, err)
	for _, rel := range rels {
		require.Contains(t, manifest.ActivationEvents, "workspaceContains:"+rel, "VS Code starts for %s", rel)
		require.Contains(t, string(nvim), "'"+rel+"'", "Neovim's files.workspace names %s", rel)
	}
}
