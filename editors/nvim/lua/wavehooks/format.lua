-- Text for :WaveHooksLog and :WaveHooksRun: each recorded event with every
-- configured hook's story (matched or why not, skipped or ran, its stdin,
-- exit code, stdout, stderr and decision).
local M = {}

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
  text = (text or ''):gsub('%s+$', '')
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
  lines[#lines + 1] = string.format('  hook %d: %s', n, h.command)
  lines[#lines + 1] = string.format('    from %s settings %s', h.source or '?', h.file or '?')
  local matcher = (h.matcher == nil or h.matcher == '') and '(no matcher)' or string.format('matcher "%s"', h.matcher)
  local why = (h.why and h.why ~= '') and (' (' .. h.why .. ')') or ''
  lines[#lines + 1] = string.format('    %s: %s%s', matcher, h.matched and 'matched' or 'did not match', why)
  if h.skipped and h.skipped ~= '' then
    lines[#lines + 1] = '    skipped: ' .. h.skipped
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
    lines[#lines + 1] = '    problem: ' .. p
  end
  if h.decision and h.decision ~= '' then
    lines[#lines + 1] = '    decision: ' .. h.decision
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
function M.run_lines(run)
  local on = (run.matchValue and run.matchValue ~= '') and (' (' .. run.matchValue .. ')') or ''
  local session = (run.sessionId and run.sessionId ~= '') and (' session ' .. run.sessionId) or ' (run by hand)'
  local time = (run.time or ''):gsub('T', ' '):gsub('%.%d+', ''):gsub('Z$', ' UTC')
  local outcome = (run.outcome and run.outcome ~= '') and run.outcome or 'no opinion'
  local lines = { string.format('[%s] #%s %s%s%s -> %s', time, tostring(run.id), run.event, on, session, outcome) }
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
  local lines = { string.format('Ran %s hook `%s` with sample input -> %s', r.event, r.command, r.outcome or '') }
  if type(r.run) == 'table' and r.run.command then
    vim.list_extend(lines, M.hook_lines(r.run, 1))
  end
  return end_with_stdin(lines, r.stdin)
end

return M
