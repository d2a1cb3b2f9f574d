-- Headless Neovim 0.7 as a real LSP client of `shapehint lsp` (driven by test_neovim.py).
-- Opens the example given as the file argument, waits for the diagnostic, checks the hover,
-- applies the "Insert inferred shape as comment" code action, writes a report and exits.
local python = os.getenv("SHAPEHINT_PYTHON")
local report_path = os.getenv("SHAPEHINT_REPORT")
local report = {}

local function finish(ok, msg)
  report.ok = ok
  report.message = msg
  local f = io.open(report_path, "w")
  f:write(vim.fn.json_encode(report))
  f:close()
  if ok then vim.cmd("qall!") else vim.cmd("cquit 1") end
end

local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  local fname = vim.api.nvim_buf_get_name(buf)
  local id = vim.lsp.start_client({
    name = "shapehint",
    cmd = { python, "-m", "shapehint", "lsp" },  -- the console entry `shapehint lsp`
    root_dir = vim.fn.fnamemodify(fname, ":h"),
  })
  assert(id, "start_client failed")
  vim.lsp.buf_attach_client(buf, id)
  assert(vim.wait(20000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.initialized
  end, 20), "client did not initialise")

  -- diagnostics (pushed: Neovim 0.7 has no pull diagnostics)
  assert(vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20), "no diagnostics")
  report.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(report.diagnostics, { lnum = d.lnum, col = d.col, code = d.code or
      (d.user_data and d.user_data.lsp and d.user_data.lsp.code), message = d.message,
      severity = d.severity })
  end

  -- hover on `h` of `h = F.relu(self.fc1(h))` (line 18)
  local hover_line = tonumber(os.getenv("SHAPEHINT_HOVER_LINE")) - 1
  local params = { textDocument = vim.lsp.util.make_text_document_params(buf),
                   position = { line = hover_line, character = 8 } }
  local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 20000)
  assert(res and res[id] and res[id].result, "no hover result")
  local contents = res[id].result.contents
  report.hover = type(contents) == "table" and (contents.value or "") or tostring(contents)

  -- code action on the same line: insert the inferred shape as a comment
  local range = { start = { line = hover_line, character = 0 }, ["end"] = { line = hover_line, character = 0 } }
  local cparams = { textDocument = vim.lsp.util.make_text_document_params(buf), range = range,
                    context = { diagnostics = {} } }
  local acts = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", cparams, 20000)
  assert(acts and acts[id] and acts[id].result, "no code actions")
  local chosen = nil
  report.actions = {}
  for _, a in ipairs(acts[id].result) do
    table.insert(report.actions, a.title)
    if a.title == "Insert inferred shape as comment" then chosen = a end
  end
  assert(chosen, "the comment action is missing")
  vim.lsp.util.apply_workspace_edit(chosen.edit, "utf-16")
  report.line_after = vim.api.nvim_buf_get_lines(buf, hover_line, hover_line + 1, false)[1]
end)

if ok then finish(true, "ok") else finish(false, tostring(err)) end
