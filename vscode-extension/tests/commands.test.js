"use strict";
// Commands (Run Shapes, Annotate Function, Show Output), the status bar, and workspace trust.
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const { vscode, load, tempDir, fakeInterpreter, events, context, dispose, editor, until } = require("./helpers/harness");

const ext = load("extension.js");
const { summarizeRun } = load("status.js");

const SRC = "import torch\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return self.fc(x)\n";

async function start({ trusted = true, settings = {} } = {}) {
  const log = path.join(tempDir(), "log.jsonl");
  vscode.reset({ trusted, settings: { "shapehint.interpreter": fakeInterpreter(log), ...settings } });
  const ctx = context();
  const manager = await ext.activate(ctx);
  return { ctx, manager, log };
}

test("the contributed commands are registered, and the server's under their own ids", async () => {
  const { ctx } = await start();
  try {
    const ids = await vscode.commands.getCommands();
    for (const id of ["shapehint.restartServer", "shapehint.runShapes", "shapehint.annotate", "shapehint.showOutput"]) {
      assert.ok(ids.includes(id), id);
    }
    // vscode-languageclient registers the server's executeCommand commands.
    assert.ok(ids.includes("shapehint.deviceRun"));
    assert.ok(ids.includes("shapehint.annotateFunction"));
  } finally { await dispose(ctx); }
});

test("status bar: the server's shapehint/status, then the last run", async () => {
  const { ctx, manager } = await start();
  try {
    const item = vscode.state.statusItems[0];
    await until(() => manager.status.state === "idle");
    assert.match(item.text, /\$\(check\) ShapeHint$/);
    manager.status.setState("analysing");
    assert.match(item.text, /sync~spin/);
    assert.strictEqual(item.command, "shapehint.showOutput");
  } finally { await dispose(ctx); }
});

test("Run Shapes sends shapehint.deviceRun with the entry under the cursor, device and trust", async () => {
  const { ctx, log, manager } = await start({ settings: { "shapehint.deviceRun.device": "cpu" } });
  try {
    vscode.state.activeTextEditor = editor(SRC, 4);
    const result = await vscode.commands.executeCommand("shapehint.runShapes");
    assert.strictEqual(result.summary.match, 3);
    const call = events(log).find((e) => e.event === "executeCommand");
    assert.strictEqual(call.command, "shapehint.deviceRun");
    assert.deepStrictEqual(call.arguments, [{ uri: vscode.Uri.file("/work/model.py").toString(), device: "cpu", trusted: true, entry: "Net.forward" }]);
    assert.ok(vscode.state.calls.some((c) => c[0] === "progress" && /running Net\.forward \(cpu\)/.test(c[1])));
    const shown = vscode.state.calls.find((c) => c[0] === "warning");
    assert.deepStrictEqual(shown.slice(1), ["Run Shapes on cpu: 3 match, 1 mismatch.", "Show Output"]);
    assert.match(vscode.state.statusItems[0].text, /run: 3 ✓ 1 ✗/);
    assert.match(vscode.state.output.lines.join("\n"), /line 4: h observed \[2,120\] inferred \[2,128\]/);
    // At module level the whole file runs: no entry.
    vscode.state.activeTextEditor = editor(SRC, 0);
    await vscode.commands.executeCommand("shapehint.runShapes");
    const second = events(log).filter((e) => e.event === "executeCommand")[1];
    assert.strictEqual(second.arguments[0].entry, undefined);
    assert.ok(manager.status.run);
  } finally { await dispose(ctx); }
});

test("untrusted workspace: analysis starts (trusted: false), device runs are refused with the reason", async () => {
  const { ctx, log, manager } = await start({ trusted: false });
  try {
    assert.ok(manager.client.isRunning(), "the server runs for analysis");
    assert.strictEqual(events(log).find((e) => e.event === "initialize").initializationOptions.trusted, false);
    vscode.state.activeTextEditor = editor(SRC, 4);
    await vscode.commands.executeCommand("shapehint.runShapes");
    // A device run through the server's own command (a code lens) is refused too.
    await vscode.commands.executeCommand("shapehint.deviceRun", { uri: "file:///work/model.py" });
    assert.ok(!events(log).some((e) => e.event === "executeCommand"), "nothing reached the server");
    const warnings = vscode.state.calls.filter((c) => c[0] === "warning");
    assert.strictEqual(warnings.length, 2);
    assert.match(warnings[0][1], /disabled in an untrusted workspace.*Analysis still works/);
  } finally { await dispose(ctx); }
});

test("a trusted device run through the server's command carries trusted: true", async () => {
  const { ctx, log } = await start();
  try {
    await vscode.commands.executeCommand("shapehint.deviceRun", { uri: "file:///work/model.py", entry: "Net" });
    const call = events(log).find((e) => e.event === "executeCommand");
    assert.deepStrictEqual(call.arguments, [{ uri: "file:///work/model.py", entry: "Net", trusted: true }]);
  } finally { await dispose(ctx); }
});

test("Annotate Function sends shapehint.annotateFunction for the function under the cursor", async () => {
  const { ctx, log } = await start();
  try {
    vscode.state.activeTextEditor = editor(SRC, 4);
    await vscode.commands.executeCommand("shapehint.annotate");
    const call = events(log).find((e) => e.event === "executeCommand");
    assert.strictEqual(call.command, "shapehint.annotateFunction");
    assert.deepStrictEqual(call.arguments, [{ uri: vscode.Uri.file("/work/model.py").toString(), function: "Net.forward" }]);
    assert.ok(vscode.state.calls.some((c) => c[0] === "info" && c[1] === "ShapeHint: annotated Net.forward"));
    // Outside a function: a hint, no request.
    vscode.state.activeTextEditor = editor(SRC, 0);
    await vscode.commands.executeCommand("shapehint.annotate");
    assert.strictEqual(events(log).filter((e) => e.event === "executeCommand").length, 1);
  } finally { await dispose(ctx); }
});

test("Show Output shows the channel; commands without a Python editor say so", async () => {
  const { ctx } = await start();
  try {
    await vscode.commands.executeCommand("shapehint.showOutput");
    assert.ok(vscode.state.calls.some((c) => c[0] === "output.show" && c[1] === "ShapeHint"));
    vscode.state.activeTextEditor = undefined;
    await vscode.commands.executeCommand("shapehint.runShapes");
    assert.ok(vscode.state.calls.some((c) => c[0] === "info" && /open a Python file/.test(c[1])));
  } finally { await dispose(ctx); }
});

test("settings: the flat contributed settings go in initializationOptions; changes are pushed", async () => {
  const { ctx, log } = await start({ settings: { "shapehint.solver.timeoutMs": 50, "shapehint.disabledCodes": ["SH301"] } });
  try {
    const init = events(log).find((e) => e.event === "initialize").initializationOptions;
    assert.strictEqual(init.settings["shapehint.solver.timeoutMs"], 50);
    assert.deepStrictEqual(init.settings["shapehint.disabledCodes"], ["SH301"]);
    assert.strictEqual(init.settings["shapehint.inlayHints"], "assignments"); // the default
    assert.strictEqual(Object.keys(init.settings).length, 10);
  } finally { await dispose(ctx); }
});

test("summarizeRun: errors, refusals, counts", () => {
  assert.deepStrictEqual(summarizeRun({ device: "cpu", summary: { match: 2, mismatch: 0 } }),
    { text: "2 ✓ 0 ✗", detail: "Run Shapes on cpu: 2 match, 0 mismatch.", failed: false });
  const err = summarizeRun({ device: "cpu", error: { type: "RuntimeError", message: "mat1 and mat2", line: 21 },
    summary: { match: 2, mismatch: 0 } });
  assert.deepStrictEqual(err, { text: "2 ✓ 0 ✗ · error", failed: true,
    detail: "Run Shapes on cpu: 2 match, 0 mismatch; RuntimeError on line 21." });
  assert.strictEqual(summarizeRun({ device: "cpu", error: { type: "UsageError", message: "no entry" } }).detail,
    "Run Shapes on cpu: UsageError: no entry");
  assert.strictEqual(summarizeRun({ error: { type: "Untrusted", message: "no" } }).text, "refused");
  assert.strictEqual(summarizeRun(null).failed, true);
});
