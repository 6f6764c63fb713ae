-- :checkhealth wavehooks — the binary is found and runs, its version, and
-- whether the settings files are valid (`wavehooks lint --format json`).
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

function M.check()
  local health = reporter()
  local wh = require('wavehooks')

  health.start('wavehooks: server binary')
  local cmd = wh.cmd()
  local bin = cmd[1]
  if vim.fn.executable(bin) ~= 1 then
    health.error(bin .. ' was not found or is not executable', {
      'Build it: go build -o bin/wavehooks ./cmd/wavehooks',
      "Put it on PATH, or pass its path: require('wavehooks').setup({ cmd = { '/path/to/wavehooks', 'serve' } })",
    })
    return
  end
  local path = vim.fn.exepath(bin)
  health.ok('found ' .. (path ~= '' and path or bin))
  local version, code = run({ bin, 'version' })
  version = vim.trim(version)
  if code ~= 0 then
    health.error('`' .. bin .. ' version` failed (exit ' .. code .. '): ' .. version)
  else
    health.ok('version: ' .. version)
  end
  local status = wh.statusline()
  if status ~= '' then
    health.ok('the language server is running (' .. status .. ')')
  else
    health.info('the language server is not running (it starts with setup() or the first request)')
  end

  health.start('wavehooks: settings files')
  local home, root = wh.wave_home(), wh.root_dir()
  health.info('wave home: ' .. home .. ';  project: ' .. root)
  local files = { home .. '/settings.json', root .. '/.wave/settings.json', root .. '/.wave/settings.local.json' }
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

return M
