-- Headless test of the wavehooks Neovim plugin against the real server, with
-- real sh + jq hook scripts. Run through test/run.sh, which sets:
--   WAVEHOOKS_BIN, WAVEHOOKS_PLUGIN (editors/nvim), WAVEHOOKS_TEST_TMP, WAVEHOOKS_TEST_OUT.
-- Prints one line per test and "N passed, M failed" last; :cquit on failure.

local out = assert(io.open(assert(os.getenv('WAVEHOOKS_TEST_OUT')), 'w'))
local function say(line)
  out:write(line .. '\n')
  out:flush()
end

-- What a user's Neovim does at startup: filetype detection on, the plugin/
-- directories of the runtime path sourced (-u NONE does neither).
local lazy_load -- what plugin/wavehooks.lua left loaded, and the commands it defined
local ok_load, load_err = pcall(function()
  vim.opt.runtimepath:prepend(assert(os.getenv('WAVEHOOKS_PLUGIN')))
  vim.cmd('filetype on')
  vim.cmd('runtime! plugin/wavehooks.lua')
  lazy_load = {
    module_loaded = package.loaded['wavehooks'] ~= nil,
    commands = vim.tbl_filter(function(name)
      return name:find('^WaveHooks') ~= nil
    end, vim.tbl_keys(vim.api.nvim_get_commands({}))),
  }
  table.sort(lazy_load.commands)
end)
if not ok_load then
  say('setup failed: ' .. tostring(load_err))
  say('0 passed, 1 failed')
  vim.cmd('cquit 1')
end

local BIN = os.getenv('WAVEHOOKS_BIN')
local TMP = os.getenv('WAVEHOOKS_TEST_TMP')
local home, root, hooks_dir = TMP .. '/home', TMP .. '/project', TMP .. '/hooks'

local function write(path, text, mode)
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
  if mode then
    vim.loop.fs_chmod(path, mode)
  end
end

local function script(name, body)
  local p = hooks_dir .. '/' .. name
  write(p, '#!/bin/sh\n' .. body .. '\n', 493) -- 0755
  return p
end

-- Fixtures --------------------------------------------------------------------

for _, d in ipairs({ home, root .. '/.wave', hooks_dir }) do
  vim.fn.mkdir(d, 'p')
end
local deny_rm = script('deny-rm.sh', [[
cmd=$(jq -r '.tool_input.command // ""')
case "$cmd" in *"rm -rf"*) echo "rm -rf is not allowed" >&2; exit 2;; esac
exit 0]])
local ask_write = script('ask-write.sh', [[
f=$(jq -r .tool_input.file_path)
jq -n --arg f "$f" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: ("writes " + $f)}}']])
local start_hook = script('session-start.sh', [[src=$(jq -r .source); echo "notes app; started from $src"]])
local prompt_hook = script('prompt.sh', [[p=$(jq -r .prompt); echo "prompt has ${#p} characters"]])
local warn_hook = script('warn.sh', [[jq -n '{systemMessage: "remember to run the tests"}']])
local user_settings = home .. '/settings.json'
write(user_settings, ([[
{
  // the user's own hooks: they always run
  "hooks": {
    "SessionStart": [{ "hooks": [{ "type": "command", "command": "%s" }] }],
    "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "%s" }] }],
    "PreToolUse": [
      { "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "%s" }] },
      { "matcher": "Write|Edit",
        "hooks": [{ "type": "command", "command": "%s" }] },
    ],
    "PostToolUse": [{ "hooks": [{ "type": "command", "command": "%s" }] }],
    "Stop": [{ "hooks": [{ "type": "prompt", "prompt": "Has the agent finished? $ARGUMENTS" }] }],
  },
}
]]):format(start_hook, prompt_hook, deny_rm, ask_write, warn_hook))
-- The repository's own hook (waits for trust) and a broken local settings file.
write(root .. '/.wave/settings.json', [[{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo project-stop-hook"}]}]}}]])
local broken = root .. '/.wave/settings.local.json'
write(broken, '{\n  "hooks": {\n    "Stop": [\n')

-- A scripted user -----------------------------------------------------------------

local selects = {} -- every vim.ui.select: {items, prompt, kind}
local answers = {} -- queue of answers: a string (matched against the formatted items), a number (index), or 'wait'
local waiting = {} -- on_choice of prompts answered later
vim.ui.select = function(items, opts, on_choice)
  opts = opts or {}
  local fmt = opts.format_item or tostring
  local labels = {}
  for i, it in ipairs(items) do
    labels[i] = fmt(it)
  end
  table.insert(selects, { items = labels, prompt = opts.prompt, kind = opts.kind })
  local a = table.remove(answers, 1)
  if a == nil or a == 'wait' then
    table.insert(waiting, on_choice)
    return
  end
  for i, label in ipairs(labels) do
    if a == i or label == a then
      on_choice(items[i], i)
      return
    end
  end
  on_choice(nil, nil)
end

local notes = {} -- every vim.notify: {msg, level}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end

-- Test helpers ----------------------------------------------------------------------

local passed, failed = 0, 0

local function wait(cond, what, ms)
  if not vim.wait(ms or 10000, cond, 10) then
    error('timed out waiting for ' .. what, 2)
  end
end

local function check(v, msg)
  if not v then
    error(msg or 'check failed', 2)
  end
  return v
end

local function eq(a, b, msg)
  if not vim.deep_equal(a, b) then
    error(string.format('%s: expected %s, got %s', msg or 'eq', vim.inspect(b), vim.inspect(a)), 2)
  end
end

local function test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    say('ok   ' .. name)
  else
    failed = failed + 1
    say('FAIL ' .. name .. '\n' .. tostring(err))
  end
end

local wh = require('wavehooks')

-- Calls a typed helper and waits for its answer: returns result, err.
local function call(name, params, ms)
  local done, res, rerr = false, nil, nil
  wh[name](params, function(err, result)
    done, res, rerr = true, result, err
  end)
  wait(function()
    return done
  end, name, ms)
  return res, rerr
end

-- wave/stop through M.request: M.stop stops the server (it replaced the typed helper of that name).
local function stop_event(params)
  local done, res = false, nil
  wh.request('wave/stop', params, function(err, result)
    done, res = true, result or err
  end)
  wait(function()
    return done
  end, 'wave/stop')
  return res
end

local function find_note(pattern, level)
  for _, n in ipairs(notes) do
    if n.msg:find(pattern) and (level == nil or n.level == level) then
      return n
    end
  end
end

local function buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local events = { hookRun = {}, sessionChanged = {}, hooksChanged = {} }
for ev, list in pairs(events) do
  wh.on(ev, function(p)
    table.insert(list, p)
  end)
end

-- Tests -------------------------------------------------------------------------------

answers = { 'Not now' } -- the trust prompt


-- expect_one_client checks that exactly one wavehooks client runs: setup's,
-- not a second one started beside it (vim.lsp.enable on 0.11+) or a
-- stopped one left behind by a restart.
local function expect_one_client()
  local names = {}
  for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    names[#names + 1] = c.name
  end
  eq(names, { 'wavehooks' }, 'running clients')
end

test('plugin/wavehooks.lua defines the commands and sets the filetype without loading the plugin', function()
  eq(lazy_load.module_loaded, false, 'require("wavehooks") at startup')
  eq(lazy_load.commands, { 'WaveHooksLog', 'WaveHooksPending', 'WaveHooksRestart', 'WaveHooksRun', 'WaveHooksTest',
    'WaveHooksToggle', 'WaveHooksTrust' }, 'commands')
  if vim.fn.has('nvim-0.8') == 1 then
    eq(vim.filetype.match({ filename = root .. '/.wave/settings.local.json' }), 'jsonc', 'filetype of a settings file')
    eq(vim.filetype.match({ filename = root .. '/.claude/settings.json' }), 'jsonc', 'filetype of a Claude Code settings file')
  end
end)

test('setup starts the server', function()
  wh.setup({ cmd = { BIN, 'serve' }, wave_home = home, root_dir = root, ask_timeout = 20 })
  wait(function()
    local id = wh.start()
    local c = id and vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end, 'the client to initialize')
end)

test('a broken settings file gets diagnostics', function()
  vim.cmd('edit ' .. vim.fn.fnameescape(broken))
  local buf = vim.api.nvim_get_current_buf()
  eq(vim.bo[buf].filetype, 'jsonc', 'filetype')
  wait(function()
    return vim.lsp.buf_is_attached(buf, wh.start())
  end, 'the client to attach')
  wait(function()
    return #vim.diagnostic.get(buf) > 0
  end, 'diagnostics')
  local d = vim.diagnostic.get(buf)[1]
  eq(d.severity, vim.diagnostic.severity.ERROR, 'severity')
  check(d.message:find('invalid JSON'), d.message)
  -- The buffer is attached to the server setup started, not to a second one
  -- (on 0.11+ vim.lsp.enable starts its own client unless it reuses ours).
  expect_one_client()
end)

test('the trust prompt is answered with vim.ui.select', function()
  wait(function()
    for _, s in ipairs(selects) do
      if s.kind == 'wavehooks.trust' then
        return true
      end
    end
  end, 'the trust prompt')
  local s = selects[1]
  eq(s.items, { 'Trust', 'Not now' }, 'trust items')
  check(s.prompt:find('project%-stop%-hook'), s.prompt)
end)

local sid
test('a session through the Lua API', function()
  local res, err = call('session_start', { source = 'startup' })
  check(not err, vim.inspect(err))
  sid = res.sessionId
  eq(res.additionalContext, { 'notes app; started from startup' }, 'additionalContext')
  -- From here on the plugin keeps a copy of the session from the deltas alone.
  local copy
  wh.session(sid, function(e, c)
    check(not e, vim.inspect(e))
    copy = c
  end)
  wait(function()
    return copy
  end, 'the first copy of the session')
  local sub = call('user_prompt_submit', { sessionId = sid, prompt = 'add a search box' })
  eq(sub.blocked, false, 'blocked')
  eq(sub.additionalContext, { 'prompt has 16 characters' }, 'prompt context')
  local r, e = call('add_assistant_message', {
    sessionId = sid,
    blocks = { { type = 'text', content = 'cleaning up' }, { type = 'tool', id = 'tu-1', name = 'Bash', input = { command = 'rm -rf /' } } },
  })
  check(not e and r, vim.inspect(e))
  wait(function()
    return #events.sessionChanged > 0
  end, 'wave/sessionChanged')
end)

test('a deny hook denies: the agent sees the denial', function()
  local res = call('pre_tool_use', { sessionId = sid, toolUseId = 'tu-1', toolName = 'Bash', toolInput = { command = 'rm -rf /' } })
  eq(res.permission, 'deny', 'permission')
  check(res.reason:find('rm %-rf is not allowed'), res.reason)
  eq(res.asked, false, 'asked')
end)

test('an ask answered Allow with vim.ui.select', function()
  answers = { 'Allow' }
  local before = #selects
  local res = call('pre_tool_use', {
    sessionId = sid,
    toolUseId = 'tu-2',
    toolName = 'Write',
    toolInput = { file_path = root .. '/notes.txt', content = 'hi' },
  })
  eq(res.permission, 'allow', 'permission')
  eq(res.asked, true, 'asked')
  local s = selects[before + 1]
  eq(s.kind, 'wavehooks.ask', 'kind')
  eq(s.items, { 'Allow', 'Deny' }, 'items')
  check(s.prompt:find('Hook asks: allow Write%?'), s.prompt)
end)

test('an ask answered Deny with :WaveHooksPending ends the turn', function()
  answers = { 'wait' } -- the ask prompt stays up
  local done, res = false, nil
  wh.pre_tool_use({
    sessionId = sid,
    toolUseId = 'tu-3',
    toolName = 'Edit',
    toolInput = { file_path = root .. '/todo.txt', old_string = 'a', new_string = 'b' },
  }, function(_, r)
    done, res = true, r
  end)
  wait(function()
    return #waiting > 0
  end, 'the ask prompt')
  local pending = call('list_permissions', vim.empty_dict())
  eq(#pending.pending, 1, 'pending')
  answers = { 1, 'Deny' } -- pick the first pending permission, then Deny
  vim.cmd('WaveHooksPending')
  wait(function()
    return done
  end, 'preToolUse to return')
  eq(res.permission, 'deny', 'permission')
  eq(res.continue, false, "a user's deny ends the turn")
  -- The prompt that was left up answers too late: the first answer won.
  table.remove(waiting, 1)('Allow', 1)
  wait(function()
    return find_note('already decided')
  end, 'the "already decided" note')
end)

test('two asks at once: each prompt answers its own ask, by the permission id it carries', function()
  answers = { 'wait', 'wait' }
  local before = #selects
  local results = {}
  for i, name in ipairs({ 'first.txt', 'second.txt' }) do
    wh.pre_tool_use({
      sessionId = sid,
      toolUseId = 'tu-both-' .. i,
      toolName = 'Write',
      toolInput = { file_path = root .. '/' .. name, content = 'x' },
    }, function(_, r)
      results[name] = r
    end)
  end
  wait(function()
    return #selects >= before + 2
  end, 'two ask prompts')
  local pending = call('list_permissions', vim.empty_dict()).pending
  eq(#pending, 2, 'pending')
  -- The prompts show the server's own text; answer the one about second.txt first, with Deny.
  local on_choice = {}
  for i = 1, 2 do
    local s = selects[before + i]
    eq(s.kind, 'wavehooks.ask', 'kind')
    on_choice[s.prompt:find('second.txt', 1, true) and 'second' or 'first'] = waiting[#waiting - 2 + i]
  end
  check(on_choice.first and on_choice.second, 'one prompt per file')
  on_choice.second('Deny', 2)
  wait(function()
    return results['second.txt']
  end, "second.txt's preToolUse")
  eq(results['second.txt'].permission, 'deny', "second.txt's permission")
  eq(results['first.txt'], nil, 'first.txt is still asking')
  on_choice.first('Allow', 1)
  wait(function()
    return results['first.txt']
  end, "first.txt's preToolUse")
  eq(results['first.txt'].permission, 'allow', "first.txt's permission")
  for _ = 1, 2 do
    table.remove(waiting)
  end
end)

test('warn blocks become vim.notify warnings', function()
  local res = call('post_tool_use', {
    sessionId = sid,
    toolUseId = 'tu-2',
    toolName = 'Write',
    toolInput = { file_path = root .. '/notes.txt' },
    toolResponse = { success = true },
  })
  eq(res.blocked, false, 'blocked')
  wait(function()
    return find_note('remember to run the tests', vim.log.levels.WARN)
  end, 'a warning notification')
end)

test('a prompt hook without an agent plugin does not run, and the user is told once', function()
  local res = stop_event({ sessionId = sid })
  eq(res.blocked, false, 'blocked')
  local warn
  for _, b in ipairs(res.blocks) do
    if b.type == 'warn' then
      warn = b.content
    end
  end
  check(warn and warn:find('did not run: it needs an agent host', 1, true), vim.inspect(res.blocks))
  check(warn:find('no agent plugin evaluates hooks', 1, true), warn) -- the capability was declared
  wait(function()
    return find_note('needs an agent host', vim.log.levels.WARN)
  end, 'the warning notification')
  local again = stop_event({ sessionId = sid })
  for _, b in ipairs(again.blocks) do
    check(not (b.type == 'warn' and b.content:find('agent host', 1, true)), 'told once per session')
  end
end)

test("an agent plugin evaluates prompt hooks with on('evaluateHook'), at once or later", function()
  local asked = {}
  local off = wh.on('evaluateHook', function(p)
    table.insert(asked, p)
    return { ok = false, reason = 'summarise your changes first' }
  end)
  local res = stop_event({ sessionId = sid })
  off()
  eq(res.blocked, true, 'blocked')
  eq(res.reason, 'summarise your changes first', 'reason')
  eq(asked[1].type, 'prompt', 'type')
  eq(asked[1].event, 'Stop', 'event')
  eq(asked[1].sessionId, sid, 'sessionId')
  check(asked[1].prompt:find('Has the agent finished? {', 1, true), asked[1].prompt)
  eq(asked[1].input.hook_event_name, 'Stop', 'the event input')

  -- A model that answers from a callback: the answer goes back with wave/evaluateHookResult.
  off = wh.on('evaluateHook', function(p, respond)
    vim.defer_fn(function()
      respond({ ok = false, reason = 'answered later for ' .. p.event })
    end, 20)
  end)
  res = stop_event({ sessionId = sid })
  off()
  eq(res.blocked, true, 'blocked later')
  eq(res.reason, 'answered later for Stop', 'late reason')
end)

test(':WaveHooksLog lists the runs with stdin and stderr', function()
  wait(function()
    return #events.hookRun >= 5
  end, 'wave/hookRun notifications')
  local buf
  wh.log({ limit = 20 }, function(b)
    buf = b
  end)
  wait(function()
    return buf
  end, 'the log buffer')
  local text = buf_text(buf)
  check(text:find('PreToolUse %(Bash%)'), text)
  check(text:find('rm %-rf is not allowed', 1), 'stderr in the log')
  check(text:find('stdin:', 1, true), 'stdin in the log')
  check(text:find('"tool_name": "Bash"', 1, true), 'pretty stdin')
  check(text:find('did not match', 1, true), 'why a matcher did not match')
  eq(vim.api.nvim_buf_get_name(buf), 'wavehooks://log', 'buffer name')
  vim.cmd('close')
end)

test("the log shows a repository's and a hook's terminal sequences escaped, never raw", function()
  local format = require('wavehooks.format')
  local osc52, clear = '\27]52;c;ZWNobyBwd25lZA==\7', '\27[2J'
  local rlo, zwsp, c1 = '\226\128\174', '\226\128\139', '\194\155' -- U+202E, U+200B, U+009B
  local hook = {
    source = 'project', file = '/p/' .. clear .. '/settings.json', matcher = 'Bash' .. clear, matched = true,
    why = 'lists Bash' .. clear, command = 'guard.sh # ' .. osc52 .. clear, statusMessage = osc52 .. ' checking' .. rlo,
    ran = true, exitCode = 2, durationNs = 1000000, timedOut = false,
    stdout = 'out ' .. clear .. '\r\ttab\n', stderr = 'no ' .. osc52 .. '\nsecond line' .. zwsp .. '\n\255',
    problems = { 'bad ' .. clear }, decision = 'exit 2: deny ' .. osc52 .. c1,
  }
  local run = {
    id = 1, time = '2025-01-02T03:04:05Z', sessionId = 's1', event = 'PreToolUse', matchValue = 'Bash' .. clear,
    outcome = 'deny; reason: no ' .. osc52, hooks = { hook },
    stdin = vim.fn.json_encode({ tool_input = { command = 'ls ' .. osc52 .. rlo .. c1 } }),
  }
  local texts = {
    table.concat(format.run_lines(run), '\n'),
    table.concat(format.run_hook_lines({ event = 'PreToolUse', command = hook.command, outcome = run.outcome, run = hook, stdin = run.stdin }), '\n'),
  }
  for _, text in ipairs(texts) do
    for _, bad in ipairs({ '\27', '\7', '\r', rlo, zwsp, c1, '\255' }) do
      check(not text:find(bad, 1, true), vim.inspect(bad) .. ' in ' .. vim.inspect(text))
    end
  end
  local text = texts[1]
  check(text:find('hook 1: guard.sh # \\u001b]52;c;ZWNobyBwd25lZA==\\u0007\\u001b[2J', 1, true), text)
  check(text:find('status message: \\u001b]52;c;ZWNobyBwd25lZA==\\u0007 checking\\u202e', 1, true), text)
  check(text:find('\n      out \\u001b[2J\\r\ttab\n', 1, true), 'stdout keeps its tab, escapes the return: ' .. text)
  check(text:find('\n      second line\\u200b\n      \\xff', 1, true), 'stderr keeps its lines: ' .. text)
  check(text:find('decision: exit 2: deny \\u001b]52;c;ZWNobyBwd25lZA==\\u0007\\u009b', 1, true), text)
  check(text:find('"command": "ls \\u001', 1, true), 'the stdin, pretty-printed: ' .. text)
  eq(format.safe_line('a\nb\r\tc\0\127 é → 失敗 \243\160\129\129'), 'a\\nb\\r\\tc\\u0000\\u007f é → 失敗 \\U000e0041', 'safe_line')
  eq(format.safe_block('a\n\tb\rc\27'), 'a\n\tb\\rc\\u001b', 'safe_block')
end)

-- The code lenses Neovim shows for buf (0.12 changed get()'s argument and result).
local function shown_lenses(buf)
  if vim.fn.has('nvim-0.12') == 1 then
    return vim.tbl_map(function(r)
      return r.lens
    end, vim.lsp.codelens.get({ bufnr = buf }))
  end
  return vim.lsp.codelens.get(buf)
end

test(':WaveHooksRun runs the hook under the cursor with sample input', function()
  vim.cmd('edit ' .. vim.fn.fnameescape(user_settings))
  local buf = vim.api.nvim_get_current_buf()
  wait(function()
    return vim.lsp.buf_is_attached(buf, wh.start())
  end, 'the client to attach')
  -- The server's "Run hook" code lenses show above each command.
  wait(function()
    return #shown_lenses(buf) >= 5
  end, 'the code lenses')
  local lens = shown_lenses(buf)[1]
  check(lens.command.title:find('Run hook', 1, true), vim.inspect(lens))
  -- the line of the deny-rm hook's command
  local line
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find('deny-rm.sh', 1, true) then
      line = i
    end
  end
  vim.api.nvim_win_set_cursor(0, { line, 10 })
  local result
  wh.run(function(err, res)
    result = res or err
  end)
  wait(function()
    return result
  end, 'the run')
  eq(result.event, 'PreToolUse', 'event')
  check(result.command:find('deny-rm.sh', 1, true), result.command)
  check(result.stdin:find('hook_event_name', 1, true), result.stdin)
  wait(function()
    return find_note('PreToolUse hook')
  end, 'the outcome notification')
  vim.cmd('close')
end)

-- A hook test case file: the deny-rm hook passes the first case and fails the second ("ls" is not denied).
local function guard_cases(ls_command)
  return table.concat({
    '// the guard hooks',
    '{',
    '  "rm -rf is denied": {',
    '    "event": "PreToolUse",',
    '    "input": { "tool_name": "Bash", "tool_input": { "command": "rm -rf build" } },',
    '    "expect": { "permission": "deny", "reason": "rm -rf is not allowed" },',
    '  },',
    '  "ls is denied": {',
    '    "event": "PreToolUse",',
    '    "input": { "tool_name": "Bash", "tool_input": { "command": "' .. ls_command .. '" } },',
    '    "expect": { "permission": "deny" },',
    '  },',
    '}',
    '',
  }, '\n')
end

test('the "▶ Run tests" lens of a case file runs its cases: the failure on its case, cleared once it passes', function()
  vim.fn.mkdir(root .. '/.wave/tests', 'p')
  local file = root .. '/.wave/tests/guards.test.jsonc'
  write(file, guard_cases('ls'))
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  wait(function()
    return vim.lsp.buf_is_attached(buf, wh.start())
  end, 'the client to attach to the case file')
  wait(function()
    return #shown_lenses(buf) == 1
  end, 'the "Run tests" lens')
  local lens = shown_lenses(buf)[1]
  eq(lens.command.title, '▶ Run tests', 'lens title')
  eq(lens.range.start.line, 0, 'lens line')
  -- Run it as a user does: the cursor on the lens's line, vim.lsp.codelens.run().
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.codelens.run()
  local function diags()
    return vim.diagnostic.get(buf)
  end
  wait(function()
    return #diags() == 1
  end, "the failing case's diagnostic")
  local d = diags()[1]
  eq(d.message, 'case "ls is denied": expected permission deny, got none', 'message')
  eq(d.lnum, 7, "on the failing case's line")
  eq(d.severity, vim.diagnostic.severity.ERROR, 'severity')
  wait(function()
    return find_note('guards%.test%.jsonc: 1 passed, 1 failed')
  end, 'the "1 passed, 1 failed" notification')
  local tests
  wait(function()
    tests = vim.fn.bufnr('wavehooks://tests')
    return tests > 0 and buf_text(tests):find('passed', 1, true)
  end, 'the tests buffer')
  local text = buf_text(tests)
  check(text:find('PASS rm -rf is denied (line 3)', 1, true), text)
  check(text:find('FAIL ls is denied (line 8)', 1, true), text)
  check(text:find('1 passed, 1 failed', 1, true), text)
  eq(vim.api.nvim_get_current_buf(), buf, 'the cursor stays in the case file')

  write(file, guard_cases('rm -rf ls'))
  local res
  vim.cmd('WaveHooksTest')
  wh.run_tests(file, function(err, r)
    res = r or err
  end)
  wait(function()
    return res
  end, 'the second run')
  eq({ res.passed, res.failed }, { 2, 0 }, 'passed, failed')
  wait(function()
    return #diags() == 0
  end, 'the diagnostic to clear')
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == tests then
      vim.api.nvim_win_close(w, true)
    end
  end
  vim.cmd('bwipeout! ' .. buf)
end)

test('the toggle pick shows a managed hook as managed and a drifted one as drifted', function()
  local fmt = require('wavehooks.format')
  local managed = fmt.hook_item({ id = 'a1', enabled = true, managed = true, source = 'managed', line = 3,
    file = '/etc/claude-code/managed-settings.json', event = 'PreToolUse', matcher = 'Bash', command = 'guard.sh' })
  check(managed:find('^managed ') and managed:find('/etc/claude%-code/managed%-settings%.json:3'), managed)
  local drifted = fmt.hook_item({ id = 'b2', enabled = true, drift = 'added', source = 'user', line = 5,
    file = '/home/u/.wave/settings.json', event = 'Stop', matcher = '', command = 'curl evil' })
  check(drifted:find('^on ') and drifted:find('user, added outside wavehooks', 1, true), drifted)
end)

test(':WaveHooksToggle turns the picked hook off in its file, and on again by its id', function()
  local list = wh.request_sync('wave/listHooks', vim.empty_dict())
  local hook
  for _, h in ipairs(list.hooks) do
    if h.command == deny_rm then
      hook = h
    end
  end
  check(hook and hook.enabled, vim.inspect(list))
  local label = require('wavehooks.format').hook_item(hook)
  check(label:find('^on ') and label:find('PreToolUse Bash', 1, true), label)
  table.insert(answers, label)
  vim.cmd('WaveHooksToggle')
  wait(function()
    return find_note('hook `.*deny%-rm%.sh.*` is off')
  end, 'the "off" notification')
  local picked
  for _, sel in ipairs(selects) do
    if sel.kind == 'wavehooks.toggle' then
      picked = sel
    end
  end
  check(picked and vim.tbl_contains(picked.items, label), 'the pick: ' .. vim.inspect(picked))
  local f = assert(io.open(user_settings))
  local saved = f:read('*a')
  f:close()
  check(saved:find('"enabled": false', 1, true), saved)
  check(saved:find('// the user', 1, true), 'the comment is kept')
  local off = call('pre_tool_use', { sessionId = sid, toolUseId = 'tu-toggle-1', toolName = 'Bash', toolInput = { command = 'rm -rf /' } })
  check(off.permission ~= 'deny', 'off: no longer denied: ' .. vim.inspect(off))

  vim.cmd('WaveHooksToggle ' .. hook.id)
  wait(function()
    return find_note('hook `.*deny%-rm%.sh.*` is on')
  end, 'the "on" notification')
  local on = call('pre_tool_use', { sessionId = sid, toolUseId = 'tu-toggle-2', toolName = 'Bash', toolInput = { command = 'rm -rf /' } })
  eq(on.permission, 'deny', 'on again')
end)

test(':WaveHooksLog includes a session of the ACP proxy (the real `wavehooks acp`)', function()
  local agent = script('acp-agent.sh', [[
# A minimal ACP agent: answers initialize, session/new and session/prompt.
while IFS= read -r line; do
  method=$(printf '%s' "$line" | jq -r '.method // empty')
  id=$(printf '%s' "$line" | jq -c '.id // empty')
  [ -n "$method" ] && [ -n "$id" ] || continue
  case "$method" in
    initialize) r='{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}' ;;
    session/new) r='{"sessionId":"acp-nvim-1"}' ;;
    session/prompt) r='{"stopReason":"end_turn"}' ;;
    *) continue ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,"result":%s}
' "$id" "$r"
done]])
  local out = ''
  local job = vim.fn.jobstart({ BIN, 'acp', '--wave-home', home, '--project', root, '--', agent }, {
    env = { WAVE_MANAGED_SETTINGS = TMP .. '/no-managed.json' },
    on_stdout = function(_, data)
      out = out .. table.concat(data, '\n')
    end,
  })
  check(job > 0, 'the proxy started')
  local ok, err = pcall(function()
    vim.fn.chansend(job, vim.fn.json_encode({ jsonrpc = '2.0', id = 1, method = 'initialize',
      params = { protocolVersion = 1, clientCapabilities = vim.empty_dict() } }) .. '\n')
    wait(function()
      return out:find('"id":1', 1, true)
    end, "the proxy's initialize answer")
    vim.fn.chansend(job, vim.fn.json_encode({ jsonrpc = '2.0', id = 2, method = 'session/new',
      params = { cwd = root, mcpServers = {} } }) .. '\n')
    wait(function()
      return out:find('acp-nvim-1', 1, true)
    end, "the proxy's session/new answer")
    -- As it happens: a wave/hookRun of the proxy's SessionStart.
    wait(function()
      for _, r in ipairs(events.hookRun) do
        if r.sessionId == 'acp-nvim-1' and r.origin == 'runLog' and r.event == 'SessionStart' then
          return true
        end
      end
    end, "the proxy's run announced")
    local buf
    vim.cmd('WaveHooksLog')
    wh.log({ limit = 50 }, function(b)
      buf = b
    end)
    wait(function()
      return buf
    end, 'the log buffer')
    local text = buf_text(buf)
    check(text:find('SessionStart (startup) session acp-nvim-1 [ACP proxy / run log]', 1, true), text)
    check(text:find('notes app; started from startup', 1, true), "the proxy's hook output: " .. text)
    check(text:find('PreToolUse (Bash) session ' .. sid, 1, true), "the server's own runs too")
    vim.cmd('close')
  end)
  vim.fn.chanclose(job, 'stdin')
  vim.fn.jobwait({ job }, 5000)
  assert(ok, err)
end)

test(':WaveHooksTrust trusts the workspace hooks', function()
  vim.cmd('WaveHooksTrust')
  wait(function()
    for _, h in ipairs(events.hooksChanged) do
      if h.trusted then
        return true
      end
    end
  end, 'wave/hooksChanged trusted')
  check(wh.statusline():find('wave'), wh.statusline())
end)

test('request_sync, get_session and api_messages', function()
  local res, err = wh.request_sync('wave/getSession', { sessionId = sid })
  check(not err, vim.inspect(err))
  eq(res.sessionId, sid, 'sessionId')
  check(#res.messages >= 2, 'messages')
  local api = call('api_messages', { sessionId = sid })
  check(#api.messages >= 2, 'api messages')
  local runs = call('hook_runs', { sessionId = sid, event = 'PreToolUse', limit = 2 })
  eq(#runs.runs, 2, 'limited runs')
  local _, bad = wh.request_sync('wave/resolvePermission', { id = 'x', decision = 'maybe' })
  check(bad and bad.message:find('decision'), vim.inspect(bad))
end)

test('the session copy kept from wave/sessionChanged deltas equals get_session', function()
  local whole = wh.request_sync('wave/getSession', { sessionId = sid })
  wait(function()
    local c = wh.session_copy(sid)
    return c and c.version == whole.version
  end, 'the copy to reach version ' .. tostring(whole.version))
  local c, fetches = wh.session_copy(sid)
  eq(c.messages, whole.messages, 'messages')
  -- The copy starts from a whole fetch, or from a first delta that is whole
  -- (a session created by this server): never more than one fetch.
  check(fetches <= 1, 'fetched whole at most once, not ' .. tostring(fetches))
  local deltas = 0
  for _, p in ipairs(events.sessionChanged) do
    if p.sessionId == sid then
      deltas = deltas + 1
      check(type(p.version) == 'number' and type(p.since) == 'number' and type(p['from']) == 'number', vim.inspect(p))
      check(deltas == 1 or not p.full, 'only the first delta may be whole')
    end
  end
  check(deltas >= 3, 'deltas: ' .. deltas)
end)

test(':checkhealth wavehooks reports Neovim, the binary, its version, jq and the broken settings', function()
  vim.cmd('checkhealth wavehooks')
  local text = buf_text(vim.api.nvim_get_current_buf())
  check(text:find('OK:? found', 1) or text:find('OK found', 1, true), text)
  check(text:find('version: wavehooks [^\n]*%(commit %x+'), text)
  check(text:find('Neovim %d+%.%d+%.%d+ %(the server is started with'), text)
  check(text:find('jq: jq-', 1, true), text)
  check(text:find('invalid JSON', 1, true), text)
  check(text:find('ERROR', 1, true), text)
end)

-- :checkhealth with the server command pointing somewhere else, then put back.
local function health_with_cmd(cmd)
  local saved = wh.config.cmd
  wh.config.cmd = cmd
  local ok, text = pcall(function()
    vim.cmd('checkhealth wavehooks')
    return buf_text(vim.api.nvim_get_current_buf())
  end)
  wh.config.cmd = saved
  assert(ok, text)
  return text
end

test(':checkhealth wavehooks says what to do when the configured binary is missing or not executable', function()
  local missing = TMP .. '/nowhere/wavehooks'
  local text = health_with_cmd({ missing, 'serve' })
  check(text:find(missing .. ' (cmd in setup()) was not found or is not executable', 1, true), text)
  check(text:find('Fix the path in require', 1, true), text)
  check(text:find('settings files were not checked', 1, true), text)

  local plain = TMP .. '/not-executable-wavehooks'
  write(plain, '#!/bin/sh\n', 420) -- 0644
  text = health_with_cmd({ plain, 'serve' })
  check(text:find(plain .. ' exists but is not executable', 1, true), text)
  check(text:find('chmod +x ' .. plain, 1, true), text)

  local broken = TMP .. '/broken-wavehooks'
  write(broken, '#!/bin/sh\necho "no such command" >&2; exit 3\n', 493)
  text = health_with_cmd({ broken, 'serve' })
  check(text:find('`' .. broken .. ' version` failed (exit 3): no such command', 1, true), text)
end)

test('the default command finds the server built in the plugin\'s directory or by go install when it is not on PATH', function()
  local server = require('wavehooks.server')
  eq(server.plugin_root(), vim.fn.fnamemodify(os.getenv('WAVEHOOKS_PLUGIN'), ':p:h:h:h'), 'plugin root')
  local saved = { PATH = vim.env.PATH, GOBIN = vim.env.GOBIN, GOPATH = vim.env.GOPATH }
  local ok, err = pcall(function()
    vim.env.PATH = '/usr/bin:/bin' -- jq and sh, no wavehooks
    vim.env.GOBIN, vim.env.GOPATH = TMP .. '/gobin', TMP .. '/gopath'
    local fake = TMP .. '/plugin-checkout'
    local path, looked = server.find('wavehooks', fake)
    eq(path, nil, 'nothing built yet')
    eq(looked, { 'wavehooks on PATH', fake .. '/bin/wavehooks', TMP .. '/gobin/wavehooks', TMP .. '/gopath/bin/wavehooks', TMP .. '/go/bin/wavehooks' })

    vim.fn.mkdir(TMP .. '/gopath/bin', 'p')
    vim.loop.fs_copyfile(BIN, TMP .. '/gopath/bin/wavehooks')
    vim.loop.fs_chmod(TMP .. '/gopath/bin/wavehooks', 493)
    local how
    path, how = server.find('wavehooks', fake)
    eq({ path, how }, { TMP .. '/gopath/bin/wavehooks', 'go install ($GOPATH/bin)' })

    vim.fn.mkdir(fake .. '/bin', 'p')
    vim.loop.fs_copyfile(BIN, fake .. '/bin/wavehooks')
    vim.loop.fs_chmod(fake .. '/bin/wavehooks', 493)
    path, how = server.find('wavehooks', fake)
    eq({ path, how }, { fake .. '/bin/wavehooks', "built in the plugin's directory (make build)" })
    eq(server.find(BIN, fake), BIN, 'a configured path is taken as it is')
  end)
  vim.env.PATH, vim.env.GOBIN, vim.env.GOPATH = saved.PATH, saved.GOBIN, saved.GOPATH
  assert(ok, err)
end)

test("a never-run hook's quick fix, applied in the buffer, clears its warning", function()
  vim.cmd('edit ' .. vim.fn.fnameescape(broken))
  local buf = vim.api.nvim_get_current_buf()
  wait(function()
    return vim.lsp.buf_is_attached(buf, wh.start())
  end, 'the client to attach')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {
    '{ "hooks": {',
    '  "PreToolUse": [{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "true" }] }],',
    '  "Stop": [{ "hooks": [{ "type": "command", "command": "echo done" }] },',
    '           { "hooks": [{ "type": "command", "command": "echo done" }] }]',
    '} }',
  })
  -- The diagnostic in LSP's shape again (0.7 keeps only its code and data in user_data.lsp).
  local function lsp_diag(code)
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local l = d.user_data and d.user_data.lsp or {}
      if (l.code or d.code) == code then
        return { code = code, data = l.data, message = d.message, severity = d.severity,
          range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } } }
      end
    end
  end
  for _, fix in ipairs({ { 'unknown-tool', 'Change the matcher to "Write"' }, { 'shadowed-hook', 'Remove this duplicate hook' } }) do
    local code, title = fix[1], fix[2]
    wait(function()
      return lsp_diag(code) ~= nil
    end, 'a ' .. code .. ' warning')
    local d = lsp_diag(code)
    local res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
      textDocument = { uri = vim.uri_from_bufnr(buf) }, range = d.range, context = { diagnostics = { d } },
    }, 5000)
    local action
    for _, r in pairs(res or {}) do
      for _, a in ipairs(r.result or {}) do
        if a.title == title then
          action = a
        end
      end
    end
    check(action and action.kind == 'quickfix', code .. ': ' .. title .. ' among ' .. vim.inspect(res))
    vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
    wait(function()
      return lsp_diag(code) == nil
    end, 'the ' .. code .. ' warning to clear')
  end
  local text = buf_text(buf)
  check(text:find('"matcher": "Write"', 1, true), text)
  local _, n = text:gsub('echo done', '')
  eq(n, 1, 'one Stop hook left')
  -- Back to the text as saved, without reloading the buffer (which would detach it from the server on 0.12).
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.fn.readfile(broken))
  vim.bo[buf].modified = false
end)

test(':WaveHooksRestart starts a new server and attaches it to the open settings buffers', function()
  local buf = vim.fn.bufnr(broken)
  check(buf > 0 and vim.api.nvim_buf_is_loaded(buf), 'the broken settings file is open')
  local old = wh.start()
  check(vim.lsp.buf_is_attached(buf, old), 'attached before')
  vim.cmd('WaveHooksRestart')
  local new = wh.start()
  check(new ~= old, 'a new client')
  wait(function()
    return vim.lsp.buf_is_attached(buf, new)
  end, 'the buffer to attach to the new server')
  wait(function()
    return #vim.diagnostic.get(buf, { namespace = vim.lsp.diagnostic.get_namespace(new) }) > 0
  end, "the new server's diagnostics")
  expect_one_client()
end)

test('session_end and stopping the server', function()
  local res = call('session_end', { sessionId = sid, reason = 'logout' })
  check(res and res.blocks, vim.inspect(res))
  wh.stop()
  eq(wh.statusline(), '', 'statusline after stop')
end)

say(string.format('%d passed, %d failed', passed, failed))
out:close()
if failed > 0 then
  vim.cmd('cquit 1')
end
vim.cmd('qall!')
