-- Checks syntax/fsm.vim, the regex-based highlighting, on the annotated file
-- editors/nvim/syntax.fsm: each comment line of `^` marks under a line names
-- the syntax group every marked character of that line must get.
--
--   nvim --headless --clean -c 'luafile editors/nvim/syntax.lua'
--
-- Exits 0 with PASS on stderr when every mark holds, and 1 with each
-- mismatch otherwise.

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
vim.opt.runtimepath:prepend(here)
vim.cmd('syntax on')
vim.cmd('edit ' .. vim.fn.fnameescape(here .. '/syntax.fsm'))
vim.bo.filetype = 'fsm'

local failures, checked = {}, 0
local target = 0
for lnum, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
  local marks, group = line:match('^//(%s*%^+)%s+(%S+)%s*$')
  if marks and target > 0 then
    local first = line:find('%^')
    local last = first + #marks:gsub('%s', '') - 1
    for col = first, last do
      local got = vim.fn.synIDattr(vim.fn.synID(target, col, 1), 'name')
      checked = checked + 1
      if got ~= group then
        table.insert(failures, string.format('%d:%d: expected %s, got %s', target, col, group, got == '' and '(none)' or got))
      end
    end
  elseif not line:match('^%s*//') then
    target = lnum
  end
end

if checked == 0 then table.insert(failures, 'no marks found') end
for _, f in ipairs(failures) do io.stderr:write('FAIL ' .. f .. '\n') end
if #failures > 0 then vim.cmd('cquit 1') end
io.stderr:write(string.format('PASS: %d characters\n', checked))
vim.cmd('qall!')
