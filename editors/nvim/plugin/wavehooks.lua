-- wavehooks: loaded at startup, so it stays small. It sets the filetype of
-- the settings files (jsonc) and defines the commands; the plugin itself
-- (lua/wavehooks/init.lua) is required only when a command or the Lua API is
-- used, when setup() is called, or when Neovim 0.11+ attaches the server
-- (lsp/wavehooks.lua). The server starts with setup() (see README.md).
if vim.g.loaded_wavehooks then
  return
end
vim.g.loaded_wavehooks = true

require('wavehooks.files').add_filetypes()

local function command(name, desc, fn, opts)
  vim.api.nvim_create_user_command(name, fn, vim.tbl_extend('force', { desc = desc }, opts or {}))
end

command('WaveHooksTrust', "Trust this workspace's hooks", function()
  require('wavehooks').trust()
end)
command('WaveHooksPending', 'Answer a pending hook permission', function()
  require('wavehooks').pending()
end)
command('WaveHooksRun', 'Run the hook under the cursor with sample input', function()
  require('wavehooks').run()
end)
command('WaveHooksLog', 'Show the hook run history', function(a)
  require('wavehooks').log({ limit = tonumber(a.args) })
end, { nargs = '?' })
command('WaveHooksTest', "Run the hook test cases of this case file", function(a)
  require('wavehooks').run_tests(a.args ~= '' and vim.fn.fnamemodify(a.args, ':p') or nil)
end, { nargs = '?', complete = 'file' })
command('WaveHooksToggle', 'Turn one hook off or on', function(a)
  require('wavehooks').toggle(a.args)
end, { nargs = '?' })
command('WaveHooksRestart', 'Restart the wavehooks server', function()
  require('wavehooks').restart()
end)

-- The server's code lenses in the buffers it attaches to (Neovim 0.8+).
if vim.fn.exists('##LspAttach') == 1 then
  vim.api.nvim_create_autocmd('LspAttach', {
    group = vim.api.nvim_create_augroup('wavehooks_attach', { clear = true }),
    callback = function(args)
      local c = args.data and vim.lsp.get_client_by_id(args.data.client_id)
      if c and c.name == 'wavehooks' then
        require('wavehooks')._on_attach(args.buf)
      end
    end,
  })
end
