-- :checkhealth wavehooks — everything the plugin needs, each problem with how
-- to fix it: the Neovim version, the server binary (found where, executable,
-- its version, built from the plugin's commit), the tools hook scripts use
-- (sh, jq), and whether the settings files are valid
-- (`wavehooks lint --format json`).
local M = {}

-- vim.health on 0.8+ (start/ok/warn/error/info); require('health') on 0.7.
local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  local old = h or require('health')
  return {
    start = old.report_start,
    ok = old.report_ok,
    info = old.report_info,
    warn = old.report_warn,
    error = old.report_error,
  }
end

local function run(cmd)
  local out = vim.fn.system(cmd)
  return out, vim.v.shell_error
end

local function first_line(s)
  return (vim.split(vim.trim(s), '\n', { plain = true })[1] or '')
end

local MIN_NVIM = '0.7.2'

local function check_nvim(health)
  health.start('wavehooks: Neovim')
  local v = vim.version()
  local have = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-' .. MIN_NVIM) ~= 1 then
    health.error('Neovim ' .. have .. ' is too old: wavehooks needs ' .. MIN_NVIM .. ' or later', {
      'Install a newer Neovim (Debian 12 and Ubuntu 24.04 ship 0.7.2 or later)',
    })
    return
  end
  local how = vim.fn.has('nvim-0.11') == 1 and 'vim.lsp.config / vim.lsp.enable' or 'vim.lsp.start_client'
  health.ok('Neovim ' .. have .. ' (the server is started with ' .. how .. ')')
end

-- How to get a server, for the user who has none.
local function install_advice(root)
  local advice = {
    "lazy.nvim: add build = 'make build' to the plugin's spec, then run :Lazy build wavehooks",
    "packer.nvim: add run = 'make build' to the plugin's spec, then run :PackerSync",
    'By hand: make build in ' .. (root or 'the wavehooks repository') .. ' (bin/wavehooks is found there)',
    'Or: go install github.com/wavehooks/wavehooks/cmd/wavehooks@latest (~/go/bin is found), or put a release binary on PATH',
  }
  if vim.fn.executable('go') ~= 1 then
    table.insert(advice, 1, 'Building needs Go 1.26 or later, and `go` is not on PATH: install Go, or use a release binary')
  end
  if vim.fn.executable('make') ~= 1 then
    table.insert(advice, 1, '`make` is not on PATH: install it (build-essential), or build with go build -o bin/wavehooks ./cmd/wavehooks')
  end
  return advice
end

-- Returns the server's path, or nil after reporting why there is none.
local function check_binary(health, wh, server)
  health.start('wavehooks: server binary')
  local configured = wh.configured_cmd()[1]
  local root = server.plugin_root()
  local path, how = server.find(configured, root)
  if not path then
    local looked = how
    for _, p in ipairs(looked) do
      if vim.fn.filereadable(p) == 1 and vim.fn.executable(p) ~= 1 then
        health.error(p .. ' exists but is not executable', { 'Make it executable: chmod +x ' .. p })
        return nil
      end
    end
    if configured ~= server.default_name then
      health.error(configured .. ' (cmd in setup()) was not found or is not executable', {
        "Fix the path in require('wavehooks').setup({ cmd = { '/path/to/wavehooks', 'serve' } })",
        'Or remove cmd from setup() to use wavehooks from PATH or from the plugin\'s own build',
      })
      return nil
    end
    health.error('the wavehooks server was not found; looked at: ' .. table.concat(looked, ', '), install_advice(root))
    return nil
  end
  health.ok('found ' .. path .. ' (' .. how .. ')')

  local out, code = run({ path, 'version' })
  out = first_line(out)
  if code ~= 0 then
    health.error('`' .. path .. ' version` failed (exit ' .. code .. '): ' .. out, {
      'The file is not a working wavehooks for this system: build it again (make build) or reinstall it',
    })
    return nil
  end
  health.ok('version: ' .. out)
  local commit = out:match('%(commit (%x+)')
  if out:find('(commit unknown', 1, true) then
    health.info('this server was built without its commit (a plain go build): make build records it')
  elseif not commit then
    health.warn('this server does not say which commit it was built from: it is older than this plugin', {
      'Build it again: make build in ' .. (root or 'the wavehooks repository') .. ' (lazy.nvim: :Lazy build wavehooks)',
    })
  elseif root and path == root .. '/bin/' .. server.exe and vim.fn.executable('git') == 1 then
    local head, git_code = run({ 'git', '-C', root, 'rev-parse', 'HEAD' })
    head = vim.trim(head)
    if git_code == 0 and head:sub(1, #commit) ~= commit then
      health.warn('the server was built from commit ' .. commit .. ' but the plugin is at ' .. head:sub(1, 12), {
        'Build it again after updating the plugin: make build in ' .. root .. ' (lazy.nvim: :Lazy build wavehooks)',
      })
    end
  end

  local status = wh.statusline()
  if status ~= '' then
    health.ok('the language server is running (' .. status .. ')')
  else
    health.info('the language server is not running (it starts with setup() or the first request)')
  end
  return path
end

local function check_tools(health)
  health.start('wavehooks: tools hook scripts use')
  if vim.fn.has('win32') ~= 1 then
    if vim.fn.executable('sh') == 1 then
      health.ok('sh: hooks run as sh -c COMMAND')
    else
      health.error('sh is not on PATH: no hook can run', { 'Install a POSIX shell' })
    end
  end
  if vim.fn.executable('jq') == 1 then
    health.ok('jq: ' .. first_line(run({ 'jq', '--version' })))
  else
    health.warn('jq is not on PATH: hook scripts that read their input with jq (the examples, most scripts written for Claude Code) will fail', {
      'Install it: apt-get install jq, brew install jq, or winget install jqlang.jq',
    })
  end
end

local function check_settings(health, wh, bin)
  health.start('wavehooks: settings files')
  local home, root = wh.wave_home(), wh.root_dir()
  health.info('wave home: ' .. home .. ';  project: ' .. root)
  local files = { home .. '/settings.json' }
  for _, rel in ipairs(require('wavehooks.files').workspace) do
    if rel:find('^%.wave/') then -- Claude Code's files count only when imported: the server's hook count says so
      table.insert(files, root .. '/' .. rel)
    end
  end
  local found = 0
  for _, f in ipairs(files) do
    if vim.fn.filereadable(f) == 1 then
      found = found + 1
      health.info('reads ' .. f)
    end
  end
  if found == 0 then
    health.warn('no settings file: no hook is configured', { 'Create ' .. files[1] .. ' or ' .. files[2] })
  end
  if not bin then
    health.warn('the settings files were not checked: there is no server to run `wavehooks lint`')
    return
  end
  local out, lint_code = run({ bin, 'lint', '--format', 'json', '--wave-home', home, '--project', root })
  local ok, diags = pcall(vim.fn.json_decode, out)
  if not ok or type(diags) ~= 'table' then
    health.error('`wavehooks lint` failed (exit ' .. lint_code .. '): ' .. vim.trim(out))
    return
  end
  local errors, warnings = 0, 0
  for _, d in ipairs(diags) do
    local where = string.format('%s:%d:%d', d.file, (d.range.start.line or 0) + 1, (d.range.start.column or 0) + 1)
    local msg = string.format('%s: %s [%s]', where, d.message, d.code)
    if d.severity == 'error' then
      errors = errors + 1
      health.error(msg)
    elseif d.severity == 'warning' then
      warnings = warnings + 1
      health.warn(msg)
    else
      health.info(msg)
    end
  end
  if errors == 0 and warnings == 0 then
    health.ok('settings files are valid')
  else
    health.info(string.format('%d error(s), %d warning(s): open the file for diagnostics and quick fixes', errors, warnings))
  end
end

function M.check()
  local health = reporter()
  local wh = require('wavehooks')
  check_nvim(health)
  local bin = check_binary(health, wh, require('wavehooks.server'))
  check_tools(health)
  check_settings(health, wh, bin)
end

return M
