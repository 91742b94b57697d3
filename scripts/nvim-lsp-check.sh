#!/bin/sh
# Drives `knobs server` from headless Neovim (Debian's `neovim`, 0.7 and
# later): opens a radiance runbook with an invented flag, waits for the
# KNB001 diagnostic, hovers a real flag (its help from the catalogue) and
# asks for completion after `radiance --che` (`--checkpoint-policy`).
# Then stops it as an editor does (stop_client, then quit: Neovim 0.7 asks
# `shutdown` twice, then `exit`) and checks the server exits 0.
# Exit 0 when every answer is right, 1 otherwise.
# Usage: scripts/nvim-lsp-check.sh [KNOBS_BINARY]   (default: knobs on PATH)
set -eu
knobs=${1:-knobs}
case $knobs in */*) knobs=$(cd "$(dirname "$knobs")" && pwd)/$(basename "$knobs") ;; esac
command -v nvim >/dev/null || { echo "nvim-lsp-check: nvim is not installed (apt-get install -y neovim)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '[pin]\nengine = "radiance"\ntag = "v1.8.1"\n' >"$dir/knobs.toml"
cat >"$dir/run.md" <<'MD'
# Boot

```sh
radiance --checkpoint-polcy tip-only --max-num-seqs 2
```

```sh
radiance --che
```
MD
# The server's exit status, written when it ends (Neovim may be gone by then).
cat >"$dir/serve.sh" <<'SH'
"$1" server
echo $? >"$2.part" && mv "$2.part" "$2"
SH
cat >"$dir/check.lua" <<'LUA'
local knobs, file, status = _G.arg_knobs, _G.arg_file, _G.arg_status
local function fail(why) io.stderr:write("nvim-lsp-check: " .. why .. "\n"); vim.cmd("cquit 1") end
vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = "knobs", cmd = { "sh", vim.fn.fnamemodify(file, ":h") .. "/serve.sh", knobs, status }, root_dir = vim.fn.fnamemodify(file, ":h") })
if not id then fail("knobs server did not start") end
vim.lsp.buf_attach_client(buf, id)
-- Diagnostics: one KNB001 on line 4, at the invented flag.
local got = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
if not got then fail("no diagnostics in 20 s") end
local d = vim.diagnostic.get(buf)[1]
if d.code ~= "KNB001" or d.lnum ~= 3 or d.col ~= 9 or d.source ~= "knobs" then
  fail("unexpected diagnostic: " .. vim.inspect(d))
end
local function ask(method, line, col)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }
  local answers = vim.lsp.buf_request_sync(buf, method, params, 20000) or {}
  for _, a in pairs(answers) do if a.result then return a.result end end
  fail(method .. ": no answer")
end
-- Hover on --max-num-seqs: its help from the catalogue.
local hover = ask("textDocument/hover", 3, 42)
if not (hover.contents and hover.contents.value and hover.contents.value:find("how many sequences may be in flight at once", 1, true)) then
  fail("hover: " .. vim.inspect(hover))
end
-- Completion after `radiance --che`.
local items = ask("textDocument/completion", 7, 14)
items = items.items or items
local found = false
for _, it in ipairs(items) do if it.label == "--checkpoint-policy" then found = true end end
if not found then fail("completion: no --checkpoint-policy in " .. vim.inspect(items)) end
print("nvim-lsp-check: diagnostics, hover and completion are right")
vim.lsp.stop_client(id)
vim.cmd("qall!")
LUA
nvim --headless -n -u NONE -i NONE \
  --cmd "lua _G.arg_knobs = [[$knobs]]; _G.arg_file = [[$dir/run.md]]; _G.arg_status = [[$dir/status]]" \
  -c "luafile $dir/check.lua"
# Neovim's headless print ends no line: end it here.
echo >&2
# The server's exit: 0 after the editor's shutdown, within 10 s.
tries=0
while [ ! -f "$dir/status" ] && [ $tries -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
[ -f "$dir/status" ] || { echo "nvim-lsp-check: knobs server did not exit after shutdown" >&2; exit 1; }
code=$(cat "$dir/status")
[ "$code" = 0 ] || { echo "nvim-lsp-check: knobs server exited $code after shutdown, not 0" >&2; exit 1; }
echo "nvim-lsp-check: knobs server exited 0 after shutdown"
