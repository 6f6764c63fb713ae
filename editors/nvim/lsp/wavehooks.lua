-- The wavehooks language server for Neovim 0.11+ (vim.lsp.config /
-- vim.lsp.enable). require('wavehooks').setup() enables it with your options;
-- without setup(), `vim.lsp.enable('wavehooks')` uses the defaults. Neovim
-- reads this file when a jsonc buffer opens (the settings files are jsonc:
-- plugin/wavehooks.lua), and the server attaches only to settings files.
return require('wavehooks').lsp_config()
