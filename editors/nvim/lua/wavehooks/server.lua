-- Finding the wavehooks server binary. The default command names `wavehooks`;
-- when it is not on PATH, the plugin takes the one built in its own checkout
-- (bin/wavehooks: lazy.nvim's and packer's `build = 'make build'`), then the
-- one `go install` wrote ($GOBIN, $GOPATH/bin, ~/go/bin). A command the user
-- configured (a path or another name) is taken as it is. Used by setup/start
-- and by :checkhealth wavehooks, which shows where it looked.
local M = {}

local is_windows = vim.fn.has('win32') == 1

--- The binary's file name on this system.
M.exe = is_windows and 'wavehooks.exe' or 'wavehooks'

--- The default program name in the server command.
M.default_name = 'wavehooks'

--- The root of the repository this plugin was loaded from:
--- <root>/editors/nvim/lua/wavehooks/server.lua.
function M.plugin_root()
  local src = debug.getinfo(1, 'S').source
  if src:sub(1, 1) ~= '@' then
    return nil
  end
  return vim.fn.fnamemodify(src:sub(2), ':p:h:h:h:h:h')
end

local function home()
  return (vim.uv or vim.loop).os_homedir()
end

--- Where the default name is looked for after PATH, in order: { path = …, how = … }.
function M.candidates(root)
  local list = {}
  if root then
    table.insert(list, { path = root .. '/bin/' .. M.exe, how = "built in the plugin's directory (make build)" })
  end
  local gobin = vim.env.GOBIN
  if gobin and gobin ~= '' then
    table.insert(list, { path = gobin .. '/' .. M.exe, how = 'go install ($GOBIN)' })
  end
  local gopath = vim.env.GOPATH
  if gopath and gopath ~= '' then
    for _, dir in ipairs(vim.split(gopath, is_windows and ';' or ':', { plain = true })) do
      if dir ~= '' then
        table.insert(list, { path = dir .. '/bin/' .. M.exe, how = 'go install ($GOPATH/bin)' })
      end
    end
  end
  table.insert(list, { path = home() .. '/go/bin/' .. M.exe, how = 'go install (~/go/bin)' })
  return list
end

--- Finds the server for the command's program name.
--- Returns path, how it was found; or nil, the list of places looked at.
function M.find(program, root)
  if program ~= M.default_name then
    local p = vim.fn.exepath(program)
    if p ~= '' then
      return p, 'configured (cmd)'
    end
    return nil, { program }
  end
  local p = vim.fn.exepath(program)
  if p ~= '' then
    return p, 'on PATH'
  end
  local looked = { program .. ' on PATH' }
  if root == nil then
    root = M.plugin_root()
  end
  for _, c in ipairs(M.candidates(root)) do
    if vim.fn.executable(c.path) == 1 then
      return c.path, c.how
    end
    table.insert(looked, c.path)
  end
  return nil, looked
end

return M
