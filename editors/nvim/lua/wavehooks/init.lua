-- wavehooks for Neovim: starts `wavehooks serve` as a language server,
-- attaches it to hook settings files, answers its prompts, and gives agent
-- plugins a Lua API for every wave/* method.
--
--   require('wavehooks').setup({ cmd = { 'wavehooks', 'serve' } })
--   require('wavehooks').session_start({ source = 'startup' }, function(err, res) ... end)
--
-- Neovim 0.11+ uses vim.lsp.config/vim.lsp.enable (lsp/wavehooks.lua); 0.7 to
-- 0.10 (Debian's 0.7.2 included) take the one fallback path, `legacy` below:
-- vim.lsp.start_client and vim.lsp.buf_attach_client from autocommands.
local files = require('wavehooks.files')
local format = require('wavehooks.format')

local M = {}

local NAME = 'wavehooks'

local defaults = {
  -- The server command; a string is taken as the binary's path.
  -- stderr only for errors: Neovim logs a server's stderr as errors, and the log
  -- reaches lsp.log as window/logMessage anyway.
  cmd = { 'wavehooks', 'serve', '--log-level', 'error' },
  -- Wave home (user settings, sessions, trust). nil: $WAVE_HOME, else ~/.wave.
  wave_home = nil,
  -- The project root. nil: the nearest directory above the cwd with .wave or .git, else the cwd.
  root_dir = nil,
  -- Run the project's own hooks without asking (they are code from whoever wrote the repository).
  trust_workspace = false,
  -- Seconds an unanswered hook "ask" waits before it counts as Deny (server default 300).
  ask_timeout = nil,
  -- Start the server at setup (so the Lua API answers at once) rather than on the first request.
  autostart = true,
  -- How long request_sync waits for an answer, in ms.
  timeout_ms = 10000,
  -- Show the "▶ Run hook" code lenses in settings files.
  codelens = true,
}

M.config = vim.deepcopy(defaults)

local state = {
  client_id = nil,
  initialized = false,
  queue = {}, -- requests waiting for the server to initialize
  listeners = {}, -- notification method -> list of functions
  prompting = {}, -- ask ids whose vim.ui.select is up
  pending = 0, -- pending permissions, for statusline()
  hooks = nil, -- the last wave/hooksChanged
  sessions = {}, -- session id -> copy kept from wave/sessionChanged (see M.session)
  setup_done = false,
}

-- The one version switch: Neovim 0.11+ has vim.lsp.config; older versions
-- take the legacy path.
local legacy = vim.lsp.config == nil

-- Calls a client method: colon calls since 0.11 (dot calls warn there).
local function client_call(client, name, ...)
  if legacy then
    return client[name](...)
  end
  return client[name](client, ...)
end

-- Messages can carry a repository's or a hook's text (an error quoting it): escaped (format.safe_block).
local function notify(msg, level)
  vim.notify('wavehooks: ' .. format.safe_block(msg), level or vim.log.levels.INFO)
end

local function path_join(...)
  return table.concat({ ... }, '/')
end

function M.wave_home()
  local h = M.config.wave_home or vim.env.WAVE_HOME
  if not h or h == '' then
    h = path_join((vim.uv or vim.loop).os_homedir(), '.wave')
  end
  return vim.fn.fnamemodify(h, ':p'):gsub('/$', '')
end

function M.root_dir()
  if M.config.root_dir then
    return vim.fn.fnamemodify(M.config.root_dir, ':p'):gsub('/$', '')
  end
  local cwd = vim.fn.getcwd()
  for _, marker in ipairs({ '.wave', '.git' }) do
    local found = vim.fn.finddir(marker, cwd .. ';')
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h:h')
    end
  end
  return cwd
end

--- The server command as the user configured it, as a list.
function M.configured_cmd()
  local cmd = M.config.cmd
  if type(cmd) == 'string' then
    cmd = { cmd, 'serve', '--log-level', 'error' }
  end
  return vim.deepcopy(cmd)
end

--- The server command as a list, its program resolved (lua/wavehooks/server.lua): the default `wavehooks`
--- is taken from PATH, else from this plugin's own build (bin/wavehooks), else from where `go install` puts it.
function M.cmd()
  local cmd = M.configured_cmd()
  local path = require('wavehooks.server').find(cmd[1])
  if path then
    cmd[1] = path
  end
  return cmd
end

--- Whether a path is named as a hook test case file (`wavehooks test`: a name
--- ending in .test.json or .test.jsonc). The server shows "▶ Run tests" on
--- those whose text reads as cases (docs/hooks.md, "Testing your hooks").
function M.is_case_file(path)
  if not path or path == '' then
    return false
  end
  local base = vim.fn.fnamemodify(path, ':t')
  return base:match('.%.test%.json$') ~= nil or base:match('.%.test%.jsonc$') ~= nil
end

--- Whether a path is a settings file the server reads.
function M.is_settings_file(path)
  if not path or path == '' then
    return false
  end
  path = vim.fn.fnamemodify(path, ':p')
  return path == path_join(M.wave_home(), 'settings.json') or files.matches(path)
end

-- Notification listeners --------------------------------------------------

--- Subscribes to a server notification: 'wave/hookRun', 'wave/sessionChanged',
--- 'wave/hooksChanged' (or the short names 'hookRun', 'sessionChanged', 'hooksChanged'),
--- or to 'session': each new copy of a session kept by M.session.
--- Returns a function that unsubscribes.
---
--- 'evaluateHook' registers the agent plugin's evaluator of prompt, agent and
--- mcp_tool hooks (the server's wave/evaluateHook request; the latest one
--- registered answers): fn(params, respond) either returns the answer
--- ({ok = false, reason = '...'} from the model, or an MCP tool result), or
--- calls respond(answer) -- later, from a callback, when the model answers
--- asynchronously -- or respond(nil, 'error message').
function M.on(method, fn)
  if not method:find('/') then
    method = 'wave/' .. method
  end
  state.listeners[method] = state.listeners[method] or {}
  table.insert(state.listeners[method], fn)
  return function()
    for i, f in ipairs(state.listeners[method] or {}) do
      if f == fn then
        table.remove(state.listeners[method], i)
        return
      end
    end
  end
end

-- A JSON null reaches Lua as nil on older Neovims and as vim.NIL (truthy
-- userdata) on newer ones. The server sends no null arrays, but optional
-- values may be null: they are dropped, so the plugin and agent plugins see
-- nil on every version.
local function denull(v)
  if v == vim.NIL then
    return nil
  end
  if type(v) == 'table' then
    for k, x in pairs(v) do
      if x == vim.NIL then
        v[k] = nil
      else
        denull(x)
      end
    end
  end
  return v
end

local function emit(method, params)
  params = denull(params)
  for _, fn in ipairs(vim.list_slice(state.listeners[method] or {}, 1)) do
    local ok, err = pcall(fn, params)
    if not ok then
      notify(method .. ' listener failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

-- Requests ------------------------------------------------------------------

local function client()
  return state.client_id and vim.lsp.get_client_by_id(state.client_id) or nil
end

--- Sends any request to the server. callback(err, result) runs on the main loop.
--- Starts the server if needed; requests wait until it is initialized.
function M.request(method, params, callback)
  callback = callback or function() end
  local function send()
    local c = client()
    if not c then
      callback({ code = -32803, message = 'wavehooks server is not running' }, nil)
      return
    end
    client_call(c, 'request', method, params or vim.empty_dict(), function(err, result)
      callback(denull(err), denull(result))
    end)
  end
  if state.initialized and client() then
    send()
    return
  end
  if not client() then
    local ok, err = pcall(M.start)
    if not ok or not client() then
      callback({ code = -32803, message = 'wavehooks server did not start: ' .. tostring(err) }, nil)
      return
    end
  end
  table.insert(state.queue, send)
end

--- Sends a request and waits for its answer (at most timeout_ms): returns result, err.
function M.request_sync(method, params, timeout_ms)
  local done, res, rerr = false, nil, nil
  M.request(method, params, function(err, result)
    done, res, rerr = true, result, err
  end)
  if not vim.wait(timeout_ms or M.config.timeout_ms, function()
    return done
  end, 10) then
    return nil, { code = -32803, message = method .. ' timed out' }
  end
  return res, rerr
end

--- Runs a server command (workspace/executeCommand).
function M.execute(command, arguments, callback)
  M.request('workspace/executeCommand', { command = command, arguments = arguments or {} }, callback)
end

-- Typed helpers for agent plugins: each takes (params, callback(err, result)).
local methods = {
  session_start = 'wave/sessionStart', -- {sessionId?, source?} -> {sessionId, transcriptPath, additionalContext, env, continue, stopReason?, blocks}
  -- Event params may also carry the agent's state: promptId?, permissionMode?, effort? (see docs/hooks.md).
  user_prompt_submit = 'wave/userPromptSubmit', -- {sessionId, prompt} -> {blocked, reason?, additionalContext, continue, stopReason?, blocks}
  -- decision: 'allow'|'deny'|'ask'|'none' ('none': no hook decided, apply your own permission rules)
  pre_tool_use = 'wave/preToolUse', -- {sessionId, toolUseId, toolName, toolInput} -> {permission, decision, reason?, toolInput, asked, continue, stopReason?, blocks}
  -- toolResponse in the result: the output the model must see (a hook may have redacted it)
  post_tool_use = 'wave/postToolUse', -- {sessionId, toolUseId, toolName, toolInput, toolResponse, durationMs?} -> {toolResponse, blocked, reason?, additionalContext, continue, blocks}
  stop = 'wave/stop', -- {sessionId} -> {blocked, reason?, additionalContext, continue, stopReason?, blocks}
  session_end = 'wave/sessionEnd', -- {sessionId, reason?} -> {blocks}
  add_assistant_message = 'wave/addAssistantMessage', -- {sessionId, blocks} -> {}
  get_session = 'wave/getSession', -- {sessionId} -> {sessionId, transcriptPath, messages, version}
  api_messages = 'wave/apiMessages', -- {sessionId} -> {messages}
  list_permissions = 'wave/listPermissions', -- {} -> {pending}
  resolve_permission = 'wave/resolvePermission', -- {id, decision} -> {resolved}
  run_hooks = 'wave/runHooks', -- {sessionId, event, input} -> the result of that kind of event
  evaluate_hook_result = 'wave/evaluateHookResult', -- {id, result?, error?} -> {resolved} (on_evaluate_hook sends it)
  hook_runs = 'wave/hookRuns', -- {sessionId?, event?, limit?} -> {runs} newest first (the ACP proxy's too: origin 'runLog')
  list_hooks = 'wave/listHooks', -- {} -> {hooks}: every configured hook with its id (for wave.toggleHook)
}
M.methods = methods
for name, method in pairs(methods) do
  M[name] = function(params, callback)
    return M.request(method, params, callback)
  end
end

-- Session copies ------------------------------------------------------------
--
-- wave/sessionChanged carries only what changed: `messages` are the messages
-- from index `from` (0-based) on, on top of version `since` (`full` when
-- `from` is 0). A copy applies each delta that follows on from its version
-- and fetches the session again (wave/getSession) when one does not.

local function set_copy(e, copy)
  e.copy = copy
  emit('wave/session', copy)
end

local apply_delta

local function fetch_copy(id, e, callback)
  if e.fetching then
    if callback then
      table.insert(e.waiting, callback)
    end
    return
  end
  e.fetching = true
  e.fetches = (e.fetches or 0) + 1
  e.waiting = callback and { callback } or {}
  M.request('wave/getSession', { sessionId = id }, function(err, res)
    e.fetching = false
    local waiting = e.waiting
    e.waiting = {}
    if not err and res and (not e.copy or (res.version or 0) >= e.copy.version) then
      set_copy(e, { sessionId = id, version = res.version or 0, messages = res.messages or {} })
    end
    local queued = e.queued
    e.queued = {}
    if not err then
      for _, p in ipairs(queued) do
        apply_delta(id, e, p)
      end
    end
    for _, cb in ipairs(waiting) do
      cb(err, e.copy)
    end
  end)
end

apply_delta = function(id, e, p)
  local c = e.copy
  if c and p.version <= c.version then
    return -- already in the copy
  end
  if p.full then
    set_copy(e, { sessionId = id, version = p.version, messages = p.messages or {} })
  elseif c and p.since == c.version and p.from <= #c.messages then
    local msgs = {}
    for i = 1, p.from do
      msgs[i] = c.messages[i]
    end
    for _, m in ipairs(p.messages or {}) do
      msgs[#msgs + 1] = m
    end
    set_copy(e, { sessionId = id, version = p.version, messages = msgs })
  else
    fetch_copy(id, e)
  end
end

local function on_session_changed(p)
  local e = state.sessions[p.sessionId]
  if not e then
    if p.full then
      e = { queued = {}, waiting = {} }
      state.sessions[p.sessionId] = e
      set_copy(e, { sessionId = p.sessionId, version = p.version, messages = p.messages or {} })
    end
    return -- a session no one asked for: M.session fetches it when someone does
  end
  if e.fetching then
    table.insert(e.queued, p)
    return
  end
  apply_delta(p.sessionId, e, p)
end

--- The copy of a session, kept up to date from wave/sessionChanged:
--- callback(err, {sessionId, version, messages}). The first call fetches it
--- with wave/getSession; after that the copy follows every change, and
--- on('session', fn) is called with each new copy.
function M.session(id, callback)
  callback = callback or function() end
  local e = state.sessions[id]
  if not e then
    e = { queued = {}, waiting = {} }
    state.sessions[id] = e
  end
  if e.copy and not e.fetching then
    callback(nil, e.copy)
    return
  end
  fetch_copy(id, e, callback)
end

--- The copy of a session as it is now (nil if none), and how often it was fetched whole.
function M.session_copy(id)
  local e = state.sessions[id]
  return e and e.copy, e and e.fetches or 0
end

-- Prompts -------------------------------------------------------------------

-- The server answers requests concurrently, so an older list can arrive after
-- a newer one; only the answer to the latest request is kept.
local pending_seq = 0

local function refresh_pending()
  if not state.initialized then
    return
  end
  pending_seq = pending_seq + 1
  local seq = pending_seq
  M.request('wave/listPermissions', vim.empty_dict(), function(err, res)
    if seq == pending_seq and not err and res then
      state.pending = #(res.pending or {})
    end
  end)
end

local function resolve(id, decision)
  M.request('wave/resolvePermission', { id = id, decision = decision }, function(err, res)
    if err then
      notify('resolvePermission: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif res and not res.resolved then
      notify('that permission was already decided', vim.log.levels.INFO)
    end
    refresh_pending()
  end)
end

-- The text :WaveHooksPending shows for a pending permission (its own words:
-- asks are matched by id, never by a prompt's text).
local function ask_message(p)
  local msg = 'Hook asks: allow ' .. p.toolName .. '?'
  if p.reason and p.reason ~= '' then
    msg = msg .. ' ' .. p.reason
  end
  return msg
end

-- The permission id an ask prompt (window/showMessageRequest) carries on its
-- Allow and Deny actions (docs/protocol.md, "Ask prompts on the wire"); nil for
-- any other prompt.
local function ask_permission_id(params)
  local actions = params.actions or {}
  local id = actions[1] and actions[1].permissionId
  if #actions ~= 2 or type(id) ~= 'string' or id == '' then
    return nil
  end
  local titles = {}
  for _, a in ipairs(actions) do
    if a.permissionId ~= id then
      return nil
    end
    titles[a.title] = true
  end
  return (titles.Allow and titles.Deny) and id or nil
end

-- Shows a hook's ask (the server's message) with vim.ui.select and answers
-- it with wave/resolvePermission, unless it was decided meanwhile.
local function prompt_ask(id, message)
  M.request('wave/listPermissions', vim.empty_dict(), function(err, res)
    if err or not res then
      return
    end
    state.pending = #res.pending
    local still_pending = false
    for _, p in ipairs(res.pending) do
      still_pending = still_pending or p.id == id
    end
    if not still_pending or state.prompting[id] then
      return -- already decided, or already shown
    end
    state.prompting[id] = true
    vim.ui.select({ 'Allow', 'Deny' }, { prompt = message, kind = 'wavehooks.ask' }, function(choice)
      state.prompting[id] = nil
      -- A dismissed prompt is a Deny, as the server treats a dismissed message.
      resolve(id, choice == 'Allow' and 'allow' or 'deny')
    end)
  end)
end

local function prompt_trust(message)
  vim.ui.select({ 'Trust', 'Not now' }, { prompt = message, kind = 'wavehooks.trust' }, function(choice)
    if choice == 'Trust' then
      M.trust()
    end
  end)
end

-- The window/showMessageRequest handler. Asks (actions "Allow"/"Deny" that
-- carry the permission id) and the trust prompt ("Trust"/"Not now") are
-- answered at once with an error, which tells
-- the server the editor answers through another channel, then shown with
-- vim.ui.select (which may be asynchronous) and answered with
-- wave/resolvePermission or wave.trustWorkspace. Other prompts get Neovim's
-- default handler.
local function on_show_message_request(err, params, ctx, config)
  local titles = {}
  for _, a in ipairs(params.actions or {}) do
    titles[#titles + 1] = a.title
  end
  local ask_id = ask_permission_id(params)
  local kind
  if ask_id then
    kind = 'ask'
  elseif vim.tbl_contains(titles, 'Trust') and vim.tbl_contains(titles, 'Not now') then
    kind = 'trust'
  end
  if not kind then
    return vim.lsp.handlers['window/showMessageRequest'](err, params, ctx, config)
  end
  vim.schedule(function()
    if kind == 'ask' then
      prompt_ask(ask_id, params.message)
    else
      prompt_trust(params.message)
    end
  end)
  return nil,
    vim.lsp.rpc.rpc_response_error(
      vim.lsp.protocol.ErrorCodes.RequestCancelled,
      kind == 'ask' and 'answered through wave/resolvePermission' or 'answered through wave.trustWorkspace'
    )
end

local levels = { [1] = vim.log.levels.ERROR, [2] = vim.log.levels.WARN, [3] = vim.log.levels.INFO, [4] = vim.log.levels.DEBUG }

local function on_show_message(_, params)
  vim.notify('wavehooks: ' .. format.safe_block(params.message), levels[params.type] or vim.log.levels.INFO)
  return vim.NIL
end

-- The wave/evaluateHook handler. Neovim answers a server request with what
-- its handler returns, so an evaluator that answers later is answered
-- RequestCancelled at once and its answer sent with wave/evaluateHookResult
-- (as asks are answered through wave/resolvePermission). Without an
-- evaluator the answer is MethodNotFound: the server counts the hook as not
-- run and says so once per session.
local function on_evaluate_hook(_, params)
  local list = state.listeners['wave/evaluateHook'] or {}
  local fn = list[#list]
  if not fn then
    return nil,
      vim.lsp.rpc.rpc_response_error(
        vim.lsp.protocol.ErrorCodes.MethodNotFound,
        'no agent plugin evaluates hooks (none called on("evaluateHook"))'
      )
  end
  params = denull(params)
  local sync, answered, result, failure = true, false, nil, nil
  local function respond(res, err)
    if answered then
      return
    end
    answered, result, failure = true, res, err
    if not sync then
      M.request('wave/evaluateHookResult', { id = params.id, result = res, error = err and tostring(err) or nil })
    end
  end
  local ok, returned = pcall(fn, params, respond)
  sync = false
  if not ok then
    respond(nil, returned)
  elseif returned ~= nil then
    respond(returned)
  end
  if not answered then
    return nil,
      vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.RequestCancelled, 'answered through wave/evaluateHookResult')
  end
  if failure ~= nil then
    return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, tostring(failure))
  end
  return result
end

local handlers = {
  ['wave/evaluateHook'] = on_evaluate_hook,
  ['window/showMessageRequest'] = on_show_message_request,
  ['window/showMessage'] = on_show_message,
  ['wave/hookRun'] = function(_, params)
    emit('wave/hookRun', params)
    refresh_pending()
  end,
  ['wave/sessionChanged'] = function(_, params)
    params = denull(params)
    on_session_changed(params)
    emit('wave/sessionChanged', params)
    refresh_pending()
  end,
  ['wave/hooksChanged'] = function(_, params)
    params = denull(params)
    state.hooks = params
    emit('wave/hooksChanged', params)
    vim.schedule(function()
      M._refresh_codelens()
    end)
  end,
}

-- Client --------------------------------------------------------------------

local function client_config()
  local init_options = { trustWorkspaceHooks = M.config.trust_workspace and true or false }
  if M.config.wave_home then
    init_options.waveHome = M.wave_home()
  end
  if tonumber(M.config.ask_timeout) then
    -- The server refuses values outside 1 s - 24 h: clamp rather than fail to start.
    init_options.askTimeoutSeconds = math.min(math.max(tonumber(M.config.ask_timeout), 1), 86400)
  end
  -- capabilities.experimental.waveEvaluateHook: agent plugins evaluate prompt,
  -- agent and mcp_tool hooks through on('evaluateHook').
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.experimental = vim.tbl_extend('force', capabilities.experimental or {}, { waveEvaluateHook = true })
  return {
    name = NAME,
    cmd = M.cmd(),
    capabilities = capabilities,
    root_dir = M.root_dir(),
    -- settings files are jsonc (lua/wavehooks/files.lua); hook test case files may be json
    filetypes = { 'jsonc', 'json' },
    init_options = init_options,
    handlers = handlers,
    on_init = function(c)
      state.client_id = c.id
      state.initialized = true
      local queued = state.queue
      state.queue = {}
      for _, send in ipairs(queued) do
        send()
      end
      vim.schedule(M._refresh_codelens)
    end,
    on_exit = function(code, _, id)
      if id == state.client_id then
        state.client_id, state.initialized = nil, false
        -- A new server's versions do not follow on from this one's: the
        -- copies stay readable and are fetched again at their next change.
        for _, e in pairs(state.sessions) do
          e.queued = {}
          if e.copy then
            e.copy = vim.tbl_extend('force', e.copy, { version = -1 })
          end
        end
        local queued = state.queue
        state.queue = {}
        vim.schedule(function()
          for _, send in ipairs(queued) do
            send()
          end
          if code ~= 0 then
            notify('the server exited with code ' .. tostring(code), vim.log.levels.WARN)
          end
        end)
      end
    end,
  }
end

--- The client configuration for vim.lsp.config (lsp/wavehooks.lua, setup()
--- on Neovim 0.11+): the server attaches to settings files and hook test
--- case files only.
function M.lsp_config()
  local cfg = client_config()
  local root = cfg.root_dir
  cfg.root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    if M.is_settings_file(name) or M.is_case_file(name) then
      on_dir(root)
    end
  end
  return cfg
end

--- Starts the server (if it is not running) and returns its client id.
function M.start()
  if client() then
    return state.client_id
  end
  local cfg = client_config()
  if vim.fn.executable(cfg.cmd[1]) ~= 1 then
    error(cfg.cmd[1] .. ' was not found or is not executable: :checkhealth wavehooks says where it looked and how to fix it', 0)
  end
  state.initialized = false
  if legacy then
    state.client_id = vim.lsp.start_client(cfg)
  else
    state.client_id = vim.lsp.start(cfg, { attach = false })
  end
  if not state.client_id then
    error('vim.lsp could not start ' .. table.concat(cfg.cmd, ' '), 0)
  end
  return state.client_id
end

--- Stops the server; returns once it is gone (at most timeout_ms).
function M.stop(timeout_ms)
  local c = client()
  if not c then
    return
  end
  local id = state.client_id
  client_call(c, 'stop')
  vim.wait(timeout_ms or 3000, function()
    return vim.lsp.get_client_by_id(id) == nil
  end, 10)
  state.client_id, state.initialized = nil, false
end

--- Stops the server, starts a new one and attaches it to every open settings buffer.
function M.restart()
  M.stop()
  M.start()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    M.attach(buf)
  end
end

-- Neovim 0.12+ keeps enabled code lenses up to date by itself (and on the
-- server's workspace/codeLens/refresh) and deprecates refresh(); older
-- versions refresh by hand.
local function refresh_lenses(bufnr)
  if vim.lsp.codelens.enable then
    pcall(vim.lsp.codelens.enable, true, { bufnr = bufnr })
  else
    pcall(vim.lsp.codelens.refresh)
  end
end

--- Shows the server's "▶ Run hook" lenses in a buffer it attached to (the
--- LspAttach autocommand of plugin/wavehooks.lua calls it; Neovim 0.7 has no
--- LspAttach, so attach does there); run one with vim.lsp.codelens.run() or
--- :WaveHooksRun.
function M._on_attach(bufnr)
  if not M.config.codelens or vim.b[bufnr].wavehooks_codelens then
    return
  end
  vim.b[bufnr].wavehooks_codelens = true
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
    group = vim.api.nvim_create_augroup('wavehooks_codelens_' .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = function()
      if state.initialized then
        refresh_lenses(bufnr)
      end
    end,
  })
  if state.initialized then
    vim.schedule(M._refresh_codelens)
  end
end

--- Attaches the server (starting it if needed) to a buffer if it shows a
--- settings file or a hook test case file. Neovim 0.11+ attaches by itself (vim.lsp.enable) when such
--- a file opens; this is for the buffers opened before, and :WaveHooksRestart.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = vim.api.nvim_buf_get_name(bufnr)
  local case_file = M.is_case_file(name) and not M.is_settings_file(name)
  if not vim.api.nvim_buf_is_loaded(bufnr) or not (case_file or M.is_settings_file(name)) then
    return
  end
  if not case_file and vim.bo[bufnr].filetype ~= 'jsonc' then
    vim.bo[bufnr].filetype = 'jsonc' -- Neovim 0.7 does not use vim.filetype.add (lua/wavehooks/files.lua)
  end
  local ok = pcall(M.start)
  if ok and state.client_id and not vim.lsp.buf_is_attached(bufnr, state.client_id) then
    vim.lsp.buf_attach_client(bufnr, state.client_id)
    if vim.fn.exists('##LspAttach') == 0 then
      M._on_attach(bufnr)
    end
  end
end

-- Refreshes the code lenses of the settings buffers shown in windows.
function M._refresh_codelens()
  if not M.config.codelens then
    return
  end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.b[buf].wavehooks_codelens then
      vim.api.nvim_win_call(win, function()
        refresh_lenses(buf)
      end)
    end
  end
end

-- Commands ------------------------------------------------------------------

--- :WaveHooksTrust — trust this workspace's hooks.
function M.trust(callback)
  M.execute('wave.trustWorkspace', {}, function(err)
    if err then
      notify('trust: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    else
      notify("this workspace's hooks are trusted and will run")
    end
    if callback then
      callback(err)
    end
  end)
end

--- :WaveHooksPending — pick a pending permission, then Allow or Deny it.
function M.pending()
  M.request('wave/listPermissions', vim.empty_dict(), function(err, res)
    if err then
      notify('listPermissions: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    state.pending = #res.pending
    if #res.pending == 0 then
      notify('no permission is pending')
      return
    end
    vim.ui.select(res.pending, {
      prompt = 'Pending hook permissions',
      kind = 'wavehooks.pending',
      format_item = function(p)
        local input = vim.fn.json_encode(p.toolInput)
        if #input > 120 then
          input = input:sub(1, 117) .. '...'
        end
        return string.format('%s %s%s', p.toolName, input, (p.reason ~= '' and (' — ' .. p.reason) or ''))
      end,
    }, function(p)
      if not p then
        return
      end
      vim.ui.select({ 'Allow', 'Deny' }, { prompt = ask_message(p), kind = 'wavehooks.ask' }, function(choice)
        if choice then
          resolve(p.id, choice == 'Allow' and 'allow' or 'deny')
        end
      end)
    end)
  end)
end

-- A scratch buffer, reused by name, shown in a split.
local function scratch(name, lines)
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = 'wavehookslog'
    vim.api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<cr>', { noremap = true, silent = true })
    vim.api.nvim_buf_set_keymap(buf, 'n', 'R', '<cmd>WaveHooksLog<cr>', { noremap = true, silent = true })
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

--- :WaveHooksLog [N] — the last N hook runs (default 50), newest first, in a
--- scratch buffer: the server's and the ACP proxy's (`wavehooks acp`, which
--- the server follows in $WAVE_HOME/runs/runs.jsonl), marked [ACP proxy / run log].
function M.log(opts, callback)
  opts = opts or {}
  M.request('wave/hookRuns', { limit = opts.limit or 50, sessionId = opts.sessionId, event = opts.event }, function(err, res)
    if err then
      notify('hookRuns: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local lines = {
      string.format('wavehooks: the last %d hook run(s), newest first.  R: refresh  q: close', #res.runs),
      '',
    }
    if #res.runs == 0 then
      lines[#lines + 1] = 'No hook has run yet.'
    end
    for _, run in ipairs(res.runs) do
      vim.list_extend(lines, format.run_lines(run))
    end
    local dropped = tonumber(res.telemetryDropped) or 0
    if dropped > 0 then
      lines[#lines + 1] = string.format(
        'telemetry: %d run(s) not exported to OpenTelemetry (queue full or collector unreachable; docs/telemetry.md)',
        dropped
      )
    end
    local buf = scratch('wavehooks://log', lines)
    if callback then
      callback(buf, res.runs)
    end
  end)
end

-- The "Run hook" code lenses of a settings file: {title, file, index, line}.
local function lenses(file, callback)
  M.request('textDocument/codeLens', { textDocument = { uri = vim.uri_from_fname(file) } }, function(err, res)
    local out = {}
    for _, l in ipairs((not err and res) or {}) do
      if l.command and l.command.command == 'wave.runHook' then
        out[#out + 1] = {
          title = l.command.title,
          file = l.command.arguments[1],
          index = l.command.arguments[2],
          line = l.range.start.line,
        }
      end
    end
    callback(out)
  end)
end

local function run_hook(lens, callback)
  M.execute('wave.runHook', { lens.file, lens.index }, function(err, res)
    if err then
      notify('run hook: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif res then
      scratch('wavehooks://run', format.run_hook_lines(res))
    end
    if callback then
      callback(err, res)
    end
  end)
end

--- :WaveHooksRun — runs the hook under the cursor (in a settings file) with
--- sample input, or picks one of every configured hook.
function M.run(callback)
  local buf = vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(buf)
  if M.is_settings_file(file) then
    local cursor = vim.api.nvim_win_get_cursor(0)[1] - 1
    lenses(vim.fn.fnamemodify(file, ':p'), function(ls)
      -- The hook under the cursor: the last command at or above the cursor line.
      local best
      for _, l in ipairs(ls) do
        if l.line <= cursor and (not best or l.line > best.line) then
          best = l
        end
      end
      if best then
        run_hook(best, callback)
      elseif #ls > 0 then
        vim.ui.select(ls, { prompt = 'Run hook', format_item = function(l)
          return l.title .. ' line ' .. (l.line + 1)
        end }, function(l)
          if l then
            run_hook(l, callback)
          end
        end)
      else
        notify('no hook in this file')
      end
    end)
    return
  end
  local files = { path_join(M.wave_home(), 'settings.json') }
  local root = M.root_dir()
  for _, rel in ipairs({ '.wave/settings.json', '.wave/settings.local.json' }) do
    files[#files + 1] = path_join(root, rel)
  end
  local all, left = {}, #files
  for _, f in ipairs(files) do
    lenses(f, function(ls)
      vim.list_extend(all, ls)
      left = left - 1
      if left > 0 then
        return
      end
      if #all == 0 then
        notify('no hook is configured')
        return
      end
      vim.ui.select(all, { prompt = 'Run a hook with sample input', format_item = function(l)
        return string.format('%s  %s:%d', l.title, vim.fn.fnamemodify(l.file, ':~'), l.line + 1)
      end }, function(l)
        if l then
          run_hook(l, callback)
        end
      end)
    end)
  end
end

--- :WaveHooksTest — runs the hook test cases of a case file (default: the
--- current buffer's) as `wavehooks test FILE` runs them, through the server:
--- the result in a scratch buffer, "N passed, M failed" as a notification
--- (the server's), each failing case's failures as diagnostics on the case.
--- The "▶ Run tests" code lens runs the same (vim.lsp.codelens.run()).
function M.run_tests(file, callback)
  file = file or vim.api.nvim_buf_get_name(0)
  if not M.is_case_file(file) then
    notify(file .. ' is not a hook test case file (a name ending in .test.json or .test.jsonc)', vim.log.levels.ERROR)
    return
  end
  file = vim.fn.fnamemodify(file, ':p')
  M.execute('wave.runTests', { file }, function(err, res)
    if err then
      notify('run tests: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif res then
      local cur = vim.api.nvim_get_current_win()
      scratch('wavehooks://tests', format.tests_lines(res))
      if vim.api.nvim_win_is_valid(cur) then
        vim.api.nvim_set_current_win(cur) -- stay in the case file, where the diagnostics are
      end
    end
    if callback then
      callback(err, res)
    end
  end)
end

-- The lens's command runs here, so that its result is shown (Neovim looks
-- in vim.lsp.commands before it asks the server).
vim.lsp.commands['wave.runTests'] = function(command)
  M.run_tests(command.arguments and command.arguments[1])
end

--- :WaveHooksToggle [ID] — turns one hook off or on in its settings file
--- ("enabled": false, as `wavehooks hooks disable|enable` does): the hook
--- with that id, or one picked from every configured hook.
function M.toggle(id, callback)
  local function switch(hook_id)
    M.execute('wave.toggleHook', { hook_id }, function(err, res)
      if err then
        notify('toggle hook: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif res then
        notify(res.message)
      end
      if callback then
        callback(err, res)
      end
    end)
  end
  if id and id ~= '' then
    switch(id)
    return
  end
  M.request('wave/listHooks', vim.empty_dict(), function(err, res)
    if err then
      notify('listHooks: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if #res.hooks == 0 then
      notify('no hook is configured')
      return
    end
    vim.ui.select(res.hooks, { prompt = 'Turn a hook off or on', kind = 'wavehooks.toggle', format_item = format.hook_item },
      function(h)
        if h then
          switch(h.id)
        end
      end)
  end)
end

--- A short status for the statusline: "wave: 7 hooks, 2 pending".
function M.statusline()
  if not client() then
    return ''
  end
  local s = 'wave'
  if state.hooks then
    s = string.format('wave: %d hook%s', state.hooks.hooks, state.hooks.hooks == 1 and '' or 's')
    if not state.hooks.trusted then
      s = s .. ' (untrusted)'
    end
  end
  if state.pending > 0 then
    s = s .. string.format(', %d pending', state.pending)
  end
  return s
end

-- Setup -----------------------------------------------------------------------

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if state.setup_done then
    M.stop()
  end
  state.setup_done = true
  -- The commands, the filetype and the LspAttach autocommand, when the
  -- plugin/ directory was put on the runtime path after startup (lazy.nvim's
  -- config function, say).
  if not vim.g.loaded_wavehooks then
    vim.cmd('runtime plugin/wavehooks.lua')
  end
  local user_settings = path_join(M.wave_home(), 'settings.json')
  files.add_filetypes({ user_settings })

  local group = vim.api.nvim_create_augroup('wavehooks', { clear = true })
  if legacy then
    local patterns = vim.list_extend({ user_settings, '*.test.json', '*.test.jsonc' }, files.autocmd_patterns)
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      pattern = patterns,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
  else
    vim.lsp.config(NAME, M.lsp_config())
    vim.lsp.enable(NAME)
  end

  if M.config.autostart then
    local ok, err = pcall(M.start)
    if not ok then
      notify(tostring(err), vim.log.levels.WARN)
    end
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    M.attach(buf)
  end
end

return M
