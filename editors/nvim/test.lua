-- A real client for `fsmc lsp`: Neovim's built-in LSP client, driven headless.
--
--   FSMC=path/to/fsmc FSM_FILE=path/to/door.fsm nvim --headless --clean -c 'luafile editors/nvim/test.lua'
--
-- FSM_FILE must hold the text of `editors/nvim/door.fsm` (a misspelled target,
-- `opend`). The script waits for the diagnostic, checks its range and code,
-- applies the "did you mean" quick fix, renames the state `opened` to `is_open`,
-- formats the buffer and checks the final text. It exits 0 when all of that
-- held, and 1 with the reason on stderr otherwise. Works with Neovim 0.7
-- (Debian's; `vim.lsp.start_client`) and later (`vim.lsp.start`).

local function fail(message)
  io.stderr:write('FAIL: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local function check(ok, message)
  if not ok then fail(message) end
end

local function step(message)
  io.stderr:write('ok: ' .. message .. '\n')
end

local ok, err = pcall(function()
  local fsmc = assert(os.getenv('FSMC'), 'FSMC is not set')
  local file = assert(os.getenv('FSM_FILE'), 'FSM_FILE is not set')

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'fsm'

  local config = {
    name = 'fsmc',
    cmd = { fsmc, 'lsp' },
    root_dir = vim.fn.fnamemodify(file, ':p:h'),
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config)
  else
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(buf, client_id)
  end
  check(client_id, 'the client did not start')
  local client = vim.lsp.get_client_by_id(client_id)

  -- 1. The diagnostic of the misspelled target, at its exact range.
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20), 'no diagnostic within 10 s')
  local diagnostics = vim.diagnostic.get(buf)
  check(#diagnostics == 1, 'expected one diagnostic, got ' .. #diagnostics)
  local d = diagnostics[1]
  local lsp_diagnostic = d.user_data and d.user_data.lsp or {}
  local code = d.code or lsp_diagnostic.code
  check(code == 'unknown-state', 'code: ' .. tostring(code))
  check(d.lnum == 1 and d.col == 36 and d.end_lnum == 1 and d.end_col == 41,
    string.format('range: %d:%d-%d:%d', d.lnum, d.col, d.end_lnum, d.end_col))
  check(d.severity == vim.diagnostic.severity.ERROR, 'severity: ' .. tostring(d.severity))
  step('diagnostic unknown-state at 2:37-2:42')

  -- 2. The "did you mean" quick fix.
  local range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = range,
    context = { diagnostics = { { range = range, message = d.message, code = code, severity = 1 } } },
  }
  local response = client.request_sync('textDocument/codeAction', params, 5000, buf)
  check(response and response.result, 'no code actions: ' .. vim.inspect(response))
  local fix
  for _, action in ipairs(response.result) do
    if action.title == 'Replace `opend` with `opened`' then fix = action end
  end
  check(fix, 'no "did you mean" fix among ' .. vim.inspect(response.result))
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20),
    'the diagnostic stayed after the fix')
  step('quick fix applied; no diagnostics left')

  -- 3. Rename the state `opened` (at its declaration) to `is_open`.
  local rename = client.request_sync('textDocument/rename', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 2, character = 13 },
    newName = 'is_open',
  }, 5000, buf)
  check(rename and rename.result, 'rename failed: ' .. vim.inspect(rename))
  vim.lsp.util.apply_workspace_edit(rename.result, client.offset_encoding)
  step('renamed `opened` to `is_open`')

  -- 4. Format the buffer.
  local formatting = client.request_sync('textDocument/formatting', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    options = { tabSize = 4, insertSpaces = true },
  }, 5000, buf)
  check(formatting and formatting.result, 'formatting failed: ' .. vim.inspect(formatting))
  vim.lsp.util.apply_text_edits(formatting.result, buf, client.offset_encoding)
  step('formatted')

  -- 5. The final text.
  local expected = {
    'machine Door {',
    '    initial state closed {',
    '        on open -> is_open;',
    '    }',
    '    state is_open {',
    '        on close -> closed;',
    '    }',
    '}',
  }
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  check(vim.deep_equal(lines, expected), 'final text:\n' .. table.concat(lines, '\n'))
  step('final text as expected')

  -- The server must still be healthy: no diagnostics for the final text.
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20), 'diagnostics on the final text')
  client.stop()
  vim.wait(5000, function() return client.is_stopped() end, 20)
end)

if not ok then fail(tostring(err)) end
io.stderr:write('PASS\n')
vim.cmd('qall!')
