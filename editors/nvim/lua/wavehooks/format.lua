-- Text for :WaveHooksLog and :WaveHooksRun: each recorded event with every
-- configured hook's story (matched or why not, skipped or ran, its stdin,
-- exit code, stdout, stderr and decision). Nearly all of it comes from a
-- repository or a hook (commands, paths, reasons, output): each such text is
-- escaped as the server escapes it (internal/safetext), so that control,
-- bidi and zero-width characters are shown, never acted on.
local M = {}

-- Unicode's format characters (Cf) and the line and paragraph separators:
-- they reorder or hide text (bidi overrides and isolates, zero-width
-- characters, U+FEFF, tag characters).
local format_ranges = {
  { 0xAD, 0xAD }, { 0x600, 0x605 }, { 0x61C, 0x61C }, { 0x6DD, 0x6DD }, { 0x70F, 0x70F }, { 0x890, 0x891 },
  { 0x8E2, 0x8E2 }, { 0x180E, 0x180E }, { 0x200B, 0x200F }, { 0x2028, 0x202E }, { 0x2060, 0x2064 },
  { 0x2066, 0x206F }, { 0xFEFF, 0xFEFF }, { 0xFFF9, 0xFFFB }, { 0x110BD, 0x110BD }, { 0x110CD, 0x110CD },
  { 0x13430, 0x1343F }, { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A }, { 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F },
}

-- The code point of the UTF-8 sequence at byte i of s and its length, or nil when it is not UTF-8.
local function decode(s, i)
  local c = s:byte(i)
  if c < 0x80 then
    return c, 1
  end
  local n, cp, min
  if c >= 0xC2 and c <= 0xDF then
    n, cp, min = 2, c - 0xC0, 0x80
  elseif c >= 0xE0 and c <= 0xEF then
    n, cp, min = 3, c - 0xE0, 0x800
  elseif c >= 0xF0 and c <= 0xF4 then
    n, cp, min = 4, c - 0xF0, 0x10000
  else
    return nil
  end
  for k = 1, n - 1 do
    local b = s:byte(i + k)
    if not b or b < 0x80 or b > 0xBF then
      return nil
    end
    cp = cp * 64 + (b - 0x80)
  end
  if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then
    return nil
  end
  return cp, n
end

local function unsafe(cp)
  if cp < 0x20 or (cp >= 0x7F and cp <= 0x9F) then
    return true
  end
  for _, r in ipairs(format_ranges) do
    if cp >= r[1] and cp <= r[2] then
      return true
    end
  end
  return false
end

local named = { [0x0A] = '\\n', [0x0D] = '\\r', [0x09] = '\\t' }

local function escape(s, block)
  s = tostring(s or '')
  if not s:find('[%z\1-\31\127-\255]') then
    return s -- plain ASCII
  end
  local out, i = {}, 1
  while i <= #s do
    local cp, n = decode(s, i)
    if not cp then
      out[#out + 1] = string.format('\\x%02x', s:byte(i))
      n = 1
    elseif block and (cp == 0x0A or cp == 0x09) then
      out[#out + 1] = s:sub(i, i)
    elseif unsafe(cp) then
      out[#out + 1] = named[cp] or (cp > 0xFFFF and string.format('\\U%08x', cp) or string.format('\\u%04x', cp))
    else
      out[#out + 1] = s:sub(i, i + n - 1)
    end
    i = i + n
  end
  return table.concat(out)
end

--- One safe line: every control, format, separator character and byte that is not UTF-8 escaped
--- (\n, \u001b, \u202e, \xff), newlines and tabs included.
function M.safe_line(s)
  return escape(s, false)
end

--- safe_line for text of several lines (a hook's stdout or stderr): newlines and tabs are kept.
function M.safe_block(s)
  return escape(s, true)
end

local l = M.safe_line

local unit_ns = { ns = 1, us = 1e3, ['µs'] = 1e3, ['μs'] = 1e3, ms = 1e6, s = 1e9, m = 60e9, h = 3600e9 }

--- A hook's duration in nanoseconds: the field is nanoseconds, but some server
--- builds send Go's duration text ("4.62ms", "1m2.5s"); accept both.
function M.duration_ns(d)
  if type(d) == 'number' then
    return d
  end
  if type(d) ~= 'string' or d == '' then
    return nil
  end
  local total, rest = 0, vim.trim(d)
  while rest ~= '' do
    local num, unit = rest:match('^(%d+%.?%d*)(µs)')
    if not num then
      num, unit = rest:match('^(%d+%.?%d*)(μs)')
    end
    if not num then
      num, unit = rest:match('^(%d+%.?%d*)([nmu]?s)')
    end
    if not num then
      num, unit = rest:match('^(%d+%.?%d*)([mh])')
    end
    if not num or not unit_ns[unit] then
      return nil
    end
    total = total + tonumber(num) * unit_ns[unit]
    rest = rest:sub(#num + #unit + 1)
  end
  return total
end

local function ms(d)
  local ns = M.duration_ns(d)
  if not ns then
    return tostring(d)
  end
  local v = ns / 1e6
  if v >= 1000 then
    return string.format('%.1f s', v / 1000)
  elseif v < 10 then
    return string.format('%.1f ms', v)
  end
  return string.format('%d ms', math.floor(v + 0.5))
end

local function add_block(lines, text, prefix)
  text = M.safe_block(text):gsub('%s+$', '')
  for _, l in ipairs(vim.split(text, '\n', { plain = true })) do
    lines[#lines + 1] = prefix .. l
  end
end

--- Pretty-prints JSON text (one key per line); other text is returned as it is.
function M.pretty_json(text)
  local ok, v = pcall(vim.fn.json_decode, text)
  if not ok or type(v) ~= 'table' then
    return text
  end
  local function enc(x, ind)
    if type(x) == 'table' then
      if #x > 0 and (vim.islist or vim.tbl_islist)(x) then
        local parts = {}
        for _, e in ipairs(x) do
          parts[#parts + 1] = ind .. '  ' .. enc(e, ind .. '  ')
        end
        return '[\n' .. table.concat(parts, ',\n') .. '\n' .. ind .. ']'
      end
      local keys = vim.tbl_keys(x)
      if #keys == 0 then
        return '{}'
      end
      table.sort(keys)
      local parts = {}
      for _, k in ipairs(keys) do
        parts[#parts + 1] = ind .. '  ' .. vim.fn.json_encode(k) .. ': ' .. enc(x[k], ind .. '  ')
      end
      return '{\n' .. table.concat(parts, ',\n') .. '\n' .. ind .. '}'
    end
    if x == vim.NIL then
      return 'null'
    end
    return vim.fn.json_encode(x)
  end
  return enc(v, '')
end

--- Lines for one configured hook's part of an event.
function M.hook_lines(h, n)
  local lines = {}
  lines[#lines + 1] = string.format('  hook %d: %s', n, l(h.command))
  lines[#lines + 1] = string.format('    from %s settings %s', l(h.source or '?'), l(h.file or '?'))
  local matcher = (h.matcher == nil or h.matcher == '') and '(no matcher)' or string.format('matcher "%s"', l(h.matcher))
  local why = (h.why and h.why ~= '') and (' (' .. l(h.why) .. ')') or ''
  lines[#lines + 1] = string.format('    %s: %s%s', matcher, h.matched and 'matched' or 'did not match', why)
  if h.statusMessage and h.statusMessage ~= '' then
    lines[#lines + 1] = '    status message: ' .. l(h.statusMessage)
  end
  if h.skipped and h.skipped ~= '' then
    lines[#lines + 1] = '    skipped: ' .. l(h.skipped)
  end
  if h.ran then
    local status = h.timedOut and ('timed out after ' .. ms(h.durationNs))
      or string.format('exit %d in %s', h.exitCode or 0, ms(h.durationNs))
    lines[#lines + 1] = '    ran: ' .. status .. (h.json and ', stdout read as JSON' or '')
    if h.stdout and vim.trim(h.stdout) ~= '' then
      lines[#lines + 1] = '    stdout' .. (h.stdoutTruncated and ' (truncated)' or '') .. ':'
      add_block(lines, h.stdout, '      ')
    end
    if h.stderr and vim.trim(h.stderr) ~= '' then
      lines[#lines + 1] = '    stderr' .. (h.stderrTruncated and ' (truncated)' or '') .. ':'
      add_block(lines, h.stderr, '      ')
    end
  elseif h.matched and not (h.skipped and h.skipped ~= '') then
    lines[#lines + 1] = '    did not run'
  end
  for _, p in ipairs(h.problems or {}) do
    lines[#lines + 1] = '    problem: ' .. l(p)
  end
  if h.decision and h.decision ~= '' then
    lines[#lines + 1] = '    decision: ' .. l(h.decision)
  end
  return lines
end

-- Ends a run's lines with the stdin its hooks received (pretty JSON) and a blank line.
local function end_with_stdin(lines, stdin)
  if stdin and vim.trim(stdin) ~= '' then
    lines[#lines + 1] = '  stdin:'
    add_block(lines, M.pretty_json(stdin), '    ')
  end
  lines[#lines + 1] = ''
  return lines
end

--- Lines for one recorded event (an element of wave/hookRuns' runs).
--- What wave.runTests did with a hook test case file (RunTestsResult), for the tests buffer.
function M.tests_lines(r)
  local lines = { 'wavehooks: hook tests of ' .. l(r.file) .. '  q: close', '' }
  for _, n in ipairs(r.notes or {}) do
    lines[#lines + 1] = l(n)
  end
  if r.error and r.error ~= '' then
    lines[#lines + 1] = 'not run: ' .. l(r.error)
    return lines
  end
  for _, c in ipairs(r.cases or {}) do
    lines[#lines + 1] = string.format('%s %s (line %d)', c.passed and 'PASS' or 'FAIL', l(c.name), c.line + 1)
    for _, f in ipairs(c.failures or {}) do
      lines[#lines + 1] = '     ' .. l(f)
    end
  end
  lines[#lines + 1] = string.format('%d passed, %d failed', r.passed, r.failed)
  return lines
end

--- A configured hook (HookListing) in the :WaveHooksToggle pick.
function M.hook_item(h)
  local on = h.enabled and 'on ' or 'off'
  if h.managed then
    on = 'managed' -- always runs: the toggle refuses it
  end
  local matcher = (h.matcher and h.matcher ~= '') and (' ' .. l(h.matcher)) or ''
  local drift = (h.drift and h.drift ~= '') and (', ' .. l(h.drift) .. ' outside wavehooks') or ''
  return string.format('%s  %s  (%s%s, %s%s)  %s:%d', on, l(h.command), l(h.event), matcher, l(h.source), drift,
    l(vim.fn.fnamemodify(h.file, ':~')), h.line)
end

function M.run_lines(run)
  local on = (run.matchValue and run.matchValue ~= '') and (' (' .. l(run.matchValue) .. ')') or ''
  local session = (run.sessionId and run.sessionId ~= '') and (' session ' .. l(run.sessionId)) or ' (run by hand)'
  local time = l(run.time or ''):gsub('T', ' '):gsub('%.%d+', ''):gsub('Z$', ' UTC')
  local outcome = (run.outcome and run.outcome ~= '') and l(run.outcome) or 'no opinion'
  -- A run another process (the ACP proxy) wrote to the run log: its id is that process's.
  if run.origin and run.origin ~= '' then
    session = session .. (run.origin == 'runLog' and ' [ACP proxy / run log]' or (' [' .. l(run.origin) .. ']'))
  end
  local lines = { string.format('[%s] #%s %s%s%s -> %s', time, l(tostring(run.id)), l(run.event), on, session, outcome) }
  if not run.hooks or #run.hooks == 0 then
    lines[#lines + 1] = '  no hook is configured for this event'
  end
  for i, h in ipairs(run.hooks or {}) do
    vim.list_extend(lines, M.hook_lines(h, i))
  end
  return end_with_stdin(lines, run.stdin)
end

--- Lines for the result of wave.runHook (a hook run with sample input).
function M.run_hook_lines(r)
  local lines = { string.format('Ran %s hook `%s` with sample input -> %s', l(r.event), l(r.command), l(r.outcome or '')) }
  if type(r.run) == 'table' and r.run.command then
    vim.list_extend(lines, M.hook_lines(r.run, 1))
  end
  return end_with_stdin(lines, r.stdin)
end

return M
