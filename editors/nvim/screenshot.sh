#!/usr/bin/env bash
# Take docs/images/editor.png: Neovim with editors/nvim/syntax/fsm.vim and
# `fsmc lsp` attached, in tmux, in an xterm on a virtual X display, showing
# the diagnostic of a misspelled target. Needs Xvfb, xterm, tmux, nvim and
# ImageMagick (for the picture only; CI does not run this).
# Usage: editors/nvim/screenshot.sh [path/to/fsmc] [out.png]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fsmc="$(realpath "${1:-${CARGO_TARGET_DIR:-$root/target}/debug/fsmc}")"
out="$(realpath -m "${2:-$root/docs/images/editor.png}")"
dir="$(mktemp -d)"
display=":$((90 + RANDOM % 100))"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    tmux -L fsm-screenshot kill-server 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

cat > "$dir/door.fsm" <<'FSM'
/// A door that can be locked.
machine Door {
    guard has_key;

    initial state closed {
        on open -> opened;
        on lock [has_key] -> locked emit engage_bolt;
    }
    state opened {
        on close -> closed;
        after 30s -> closed emit auto_close;
    }
    state locked { on unlock -> closd emit release_bolt; }
}
FSM

cat > "$dir/init.lua" <<LUA
vim.opt.runtimepath:prepend('$here')
vim.cmd('filetype on | syntax on')
vim.opt.termguicolors = true
vim.opt.number = true
vim.opt.laststatus = 0
vim.opt.ruler = false
vim.opt.showmode = false
vim.opt.shortmess:append('I')
-- A VS Code-like dark palette for the standard groups that syntax/fsm.vim links to.
for group, colours in pairs({
  Normal = { fg = '#d4d4d4', bg = '#1e1e1e' },
  NormalFloat = { fg = '#d4d4d4', bg = '#252526' },
  FloatBorder = { fg = '#6e7681', bg = '#252526' },
  LineNr = { fg = '#6e7681' },
  SignColumn = { bg = '#1e1e1e' },
  EndOfBuffer = { fg = '#1e1e1e' },
  Comment = { fg = '#6a9955' },
  SpecialComment = { fg = '#6a9955', italic = true },
  Structure = { fg = '#569cd6' },
  StorageClass = { fg = '#569cd6' },
  Keyword = { fg = '#c586c0' },
  Operator = { fg = '#d4d4d4' },
  Type = { fg = '#4ec9b0' },
  Constant = { fg = '#4fc1ff' },
  Function = { fg = '#dcdcaa' },
  Identifier = { fg = '#d7ba7d' },
  Special = { fg = '#c8a2f0' },
  Label = { fg = '#ce9178' },
  Number = { fg = '#b5cea8' },
  PreProc = { fg = '#c586c0' },
  DiagnosticError = { fg = '#f14c4c' },
  DiagnosticSignError = { fg = '#f14c4c' },
  DiagnosticUnderlineError = { fg = '#f14c4c', underline = true, sp = '#f14c4c' },
}) do
  vim.api.nvim_set_hl(0, group, colours)
end
vim.diagnostic.config({
  virtual_text = false,
  float = { border = 'rounded', source = 'always', header = '',
    format = function(d) return d.message .. '  [' .. (d.user_data.lsp.code or '') .. ']' end },
})
vim.api.nvim_create_autocmd('FileType', { pattern = 'fsm', callback = function(args)
  local id = vim.lsp.start_client({ name = 'fsmc', cmd = { '$fsmc', 'lsp' }, root_dir = '$dir' })
  vim.lsp.buf_attach_client(args.buf, id)
end })
local function show()
  local d = vim.diagnostic.get(0)[1]
  if not d then return vim.defer_fn(show, 50) end
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  vim.defer_fn(function() vim.diagnostic.open_float({ scope = 'cursor', focusable = false }) end, 300)
end
vim.defer_fn(show, 100)
LUA

cat > "$dir/tmux.conf" <<'TMUX'
set -g status off
set -g default-terminal tmux-256color
set -ga terminal-overrides ',xterm*:Tc'
TMUX

Xvfb "$display" -screen 0 1600x900x24 -nolisten tcp >/dev/null 2>&1 & pids+=($!)
sleep 1
DISPLAY="$display" xterm -geometry 100x30+0+0 -fa 'DejaVu Sans Mono' -fs 13 -bg '#1e1e1e' -fg '#d4d4d4' \
    -bc -xrm 'XTerm*directColor: true' -xrm 'XTerm*cursorBlink: false' \
    -e tmux -L fsm-screenshot -f "$dir/tmux.conf" new-session \
    "cd '$dir' && nvim --clean -u '$dir/init.lua' door.fsm" 2>/dev/null & pids+=($!)
sleep 4
mkdir -p "$(dirname "$out")"
DISPLAY="$display" import -window root "$dir/root.png"
# Cut the xterm out of the black root window, then its empty right and
# bottom, keep a margin, and shrink the file.
convert "$dir/root.png" -fuzz 2% -trim +repage -trim +repage \
    -bordercolor '#1e1e1e' -border 12 -strip -colors 64 PNG8:"$out"
echo "$out"
