-- The settings files the wavehooks server reads, as Neovim sees them: the
-- Lua patterns of the project and user files (the same four names the server
-- loads: docs/hooks.md), for vim.filetype.add, the 0.7-0.10 autocommands and
-- is_settings_file. Small on purpose: plugin/wavehooks.lua loads it at startup.
local M = {}

--- The workspace's settings files, relative to its root, in the order the
--- server loads them (hooks.Paths.SettingsFiles; a Go test holds this list
--- to it). The user's ~/.wave/settings.json is matched by its full path.
M.workspace = {
  '.wave/settings.json',
  '.wave/settings.local.json',
  '.claude/settings.json',
  '.claude/settings.local.json',
}

--- Lua patterns a settings file's full path matches (~/.wave/settings.json
--- included; a wave home elsewhere is added by setup()).
M.patterns = {}
--- The same files as autocommand patterns (Neovim 0.7, which has no vim.filetype.add in use).
M.autocmd_patterns = {}
for _, rel in ipairs(M.workspace) do
  table.insert(M.patterns, '.*/' .. vim.pesc(rel))
  table.insert(M.autocmd_patterns, '*/' .. rel)
end

--- Whether a full path matches one of the patterns.
function M.matches(path)
  for _, p in ipairs(M.patterns) do
    if path:match('^' .. p .. '$') then
      return true
    end
  end
  return false
end

--- Settings files have comments and trailing commas: their filetype is jsonc.
--- extra: more full paths (a wave home elsewhere). Neovim 0.8+ detects
--- filetypes with vim.filetype; 0.7 sets it when the server attaches.
function M.add_filetypes(extra)
  if vim.fn.has('nvim-0.8') == 0 then
    return
  end
  local pattern, filename = {}, {}
  for _, p in ipairs(M.patterns) do
    pattern[p] = 'jsonc'
  end
  for _, f in ipairs(extra or {}) do
    filename[f] = 'jsonc'
  end
  vim.filetype.add({ pattern = pattern, filename = filename })
end

return M
