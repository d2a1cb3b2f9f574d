"use strict";
// One debounced restart path for every cause: setting change, interpreter change, trust, command.
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const { vscode, load, tempDir, fakeInterpreter, events, context, dispose, until } = require("./helpers/harness");

const ext = load("extension.js");
const { DEBOUNCE_MS } = load("server.js");

function serves(log) { return events(log).filter((e) => e.event === "serve"); }

test("Restart Server stops the old server and starts one new one; bursts coalesce", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  vscode.reset({ settings: { "shapehint.interpreter": fakeInterpreter(log) } });
  const ctx = context();
  const manager = await ext.activate(ctx);
  try {
    assert.strictEqual(manager.runs, 1);
    const first = manager.client;
    // Three causes in quick succession: one run.
    const a = vscode.commands.executeCommand("shapehint.restartServer");
    vscode.state.configEmitter.fire({ affectsConfiguration: (s) => s === "shapehint.interpreter" });
    vscode.state.trustEmitter.fire();
    await a;
    await until(() => manager.runs === 2 && manager.client && manager.client.isRunning());
    assert.strictEqual(manager.runs, 2);
    assert.notStrictEqual(manager.client, first);
    assert.strictEqual(first.isRunning(), false);
    assert.strictEqual(serves(log).length, 2);
    assert.ok(events(log).some((e) => e.event === "shutdown"), "the old server was shut down");
    assert.match(vscode.state.output.lines.join("\n"), /Restart Server command, setting changed, workspace trusted/);
  } finally { await dispose(ctx); }
});

test("other setting changes do not restart (they reach the server as didChangeConfiguration)", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  vscode.reset({ settings: { "shapehint.interpreter": fakeInterpreter(log) } });
  const ctx = context();
  const manager = await ext.activate(ctx);
  try {
    vscode.state.configEmitter.fire({ affectsConfiguration: (s) => s === "shapehint.solver.timeoutMs" || s === "shapehint" });
    await new Promise((r) => setTimeout(r, DEBOUNCE_MS * 2));
    assert.strictEqual(manager.runs, 1);
  } finally { await dispose(ctx); }
});

test("changing shapehint.interpreter restarts with the new interpreter", async () => {
  const dir = tempDir();
  const log1 = path.join(dir, "one.jsonl");
  const log2 = path.join(dir, "two.jsonl");
  vscode.reset({ settings: { "shapehint.interpreter": fakeInterpreter(log1) } });
  const ctx = context();
  const manager = await ext.activate(ctx);
  try {
    vscode.state.settings["shapehint.interpreter"] = fakeInterpreter(log2, { version: "3.12.1" });
    vscode.state.configEmitter.fire({ affectsConfiguration: (s) => s === "shapehint.interpreter" });
    await until(() => manager.runs === 2 && manager.client && manager.client.isRunning());
    assert.strictEqual(serves(log1).length, 1);
    assert.strictEqual(serves(log2).length, 1);
    assert.strictEqual(manager.lastPlan.python, "3.12.1");
  } finally { await dispose(ctx); }
});

test("the Python extension's interpreter change restarts, unless the setting overrides it", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  const emitter = new vscode.EventEmitter();
  const exe = fakeInterpreter(log);
  const extensions = { "ms-python.python": { isActive: true, exports: { settings: {
    getExecutionDetails: () => ({ execCommand: exe }), onDidChangeExecutionDetails: emitter.event } } } };
  vscode.reset({ extensions });
  const ctx = context();
  const manager = await ext.activate(ctx);
  try {
    assert.ok(manager.client.isRunning());
    assert.match(vscode.state.output.lines.join("\n"), /from the Python extension/);
    emitter.fire();
    await until(() => manager.runs === 2 && manager.client && manager.client.isRunning());
    vscode.state.settings["shapehint.interpreter"] = exe;
    emitter.fire();
    await new Promise((r) => setTimeout(r, DEBOUNCE_MS * 2));
    assert.strictEqual(manager.runs, 2);
  } finally { await dispose(ctx); }
});
