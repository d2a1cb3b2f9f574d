"use strict";
// Start-up choices: which interpreter, the version check, bundled vs installed, the install message.
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const { vscode, load, tempDir, fakeInterpreter, events, context, dispose } = require("./helpers/harness");

const ext = load("extension.js");
const { resolveInterpreter } = load("interpreter.js");

async function start(settings, { bundled = true, extensions = {}, trusted = true } = {}) {
  vscode.reset({ settings, extensions, trusted, answers: {} });
  const ctx = context({ bundled });
  const manager = await ext.activate(ctx);
  return { ctx, manager };
}

test("the shapehint.interpreter setting wins; the server starts from the bundled libraries", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  const { ctx, manager } = await start({ "shapehint.interpreter": fakeInterpreter(log) });
  try {
    assert.ok(manager.client && manager.client.isRunning(), "client running");
    const serve = events(log).find((e) => e.event === "serve");
    assert.strictEqual(serve.source, "bundled");
    assert.ok(serve.argv.some((a) => a.endsWith(path.join("bundled", "libs"))));
    const init = events(log).find((e) => e.event === "initialize");
    assert.strictEqual(init.initializationOptions.trusted, true);
    assert.strictEqual(init.initializationOptions.settings["shapehint.deviceRun.device"], "auto");
    assert.strictEqual(init.initializationOptions.settings["shapehint.solver.timeoutMs"], 10000);
    assert.match(vscode.state.output.lines.join("\n"), /from the shapehint.interpreter setting/);
  } finally { await dispose(ctx); }
});

test("when the bundled libraries do not load, a shapehint installed in the interpreter is used", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  const { ctx, manager } = await start({ "shapehint.interpreter": fakeInterpreter(log, { bundled: "fail" }) });
  try {
    assert.ok(manager.client.isRunning());
    assert.deepStrictEqual(events(log).filter((e) => e.event === "probe").map((e) => e.source), ["bundled", "installed"]);
    assert.strictEqual(events(log).find((e) => e.event === "serve").source, "installed");
    assert.match(vscode.state.output.lines.join("\n"), /bundled server does not load/);
  } finally { await dispose(ctx); }
});

test("without bundled libraries, the installed server is probed directly", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  const { ctx } = await start({ "shapehint.interpreter": fakeInterpreter(log) }, { bundled: false });
  try {
    assert.deepStrictEqual(events(log).filter((e) => e.event === "probe").map((e) => e.source), ["installed"]);
  } finally { await dispose(ctx); }
});

test("shapehint importable nowhere: an error with the exact install command, which can be copied", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  vscode.reset();
  const { ctx, manager } = await start({ "shapehint.interpreter": fakeInterpreter(log, { bundled: "fail", installed: "fail" }) });
  try {
    assert.strictEqual(manager.client, undefined);
    const err = vscode.state.calls.find((c) => c[0] === "error");
    assert.ok(err, "an error message");
    assert.match(err[1], /Install it with: \/fake\/bin\/python -m pip install shapehint$/);
    assert.deepStrictEqual(err.slice(2), ["Copy Install Command", "Show Output"]);
    assert.strictEqual(manager.status.state, "error");
    assert.ok(!events(log).some((e) => e.event === "serve"));
  } finally { await dispose(ctx); }
  // The button copies the command.
  vscode.reset({ answers: { error: "Copy Install Command" } });
  const log2 = path.join(tempDir(), "log.jsonl");
  vscode.state.settings["shapehint.interpreter"] = fakeInterpreter(log2, { installed: "fail" });
  const ctx2 = context({ bundled: false });
  await ext.activate(ctx2);
  await new Promise((r) => setTimeout(r, 50));
  assert.strictEqual(vscode.state.clipboard, "/fake/bin/python -m pip install shapehint");
  await dispose(ctx2);
});

test("a Python older than 3.10 is refused with the version found", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  const { ctx, manager } = await start({ "shapehint.interpreter": fakeInterpreter(log, { version: "3.9.18" }) });
  try {
    assert.strictEqual(manager.client, undefined);
    const err = vscode.state.calls.find((c) => c[0] === "error");
    assert.match(err[1], /needs Python ≥ 3\.10, .* is Python 3\.9\.18/);
  } finally { await dispose(ctx); }
});

test("an interpreter that does not exist is named in the error", async () => {
  const { ctx } = await start({ "shapehint.interpreter": ["/no/such/python"] });
  try {
    const err = vscode.state.calls.find((c) => c[0] === "error");
    assert.match(err[1], /cannot run the Python interpreter \/no\/such\/python .*was not found/);
  } finally { await dispose(ctx); }
});

test("interpreter order: setting, then the Python extension's environment, then python3", async () => {
  const pythonExt = (exe) => ({
    "ms-python.python": { isActive: true, exports: { environments: {
      getActiveEnvironmentPath: () => ({ path: exe }),
      resolveEnvironment: async (p) => ({ executable: { uri: { fsPath: p.path } } }),
    } } },
  });
  vscode.reset({ extensions: pythonExt("/envs/a/bin/python") });
  assert.deepStrictEqual(await resolveInterpreter(), { command: ["/envs/a/bin/python"], source: "python-extension" });
  vscode.reset({ extensions: pythonExt("/envs/a/bin/python"), settings: { "shapehint.interpreter": ["/opt/py", "-X", "utf8"] } });
  assert.deepStrictEqual(await resolveInterpreter(), { command: ["/opt/py", "-X", "utf8"], source: "setting" });
  vscode.reset({ folders: ["/ws"], settings: { "shapehint.interpreter": ["${workspaceFolder}/.venv/bin/python"] } });
  assert.deepStrictEqual((await resolveInterpreter()).command, ["/ws/.venv/bin/python"]);
  vscode.reset();
  assert.deepStrictEqual(await resolveInterpreter(), { command: ["python3"], source: "default" });
  // An extension whose API throws counts as none.
  vscode.reset({ extensions: { "ms-python.python": { isActive: false, activate: async () => { throw new Error("boom"); } } } });
  assert.deepStrictEqual(await resolveInterpreter(), { command: ["python3"], source: "default" });
});

test("the install command is quoted for the shell and names the server's distribution", () => {
  const { installCommand, versionOk } = load("interpreter.js");
  assert.strictEqual(installCommand("/usr/bin/python3"), "/usr/bin/python3 -m pip install shapehint");
  assert.strictEqual(installCommand("/my env/bin/python"), "\"/my env/bin/python\" -m pip install shapehint");
  assert.strictEqual(installCommand("/p", { module: "shapehint", minimumPython: "3.10" }), "/p -m pip install shapehint");
  assert.ok(versionOk("3.10.0") && versionOk("3.13.1") && versionOk("4.0.0"));
  assert.ok(!versionOk("3.9.18") && !versionOk("2.7.18") && !versionOk(undefined));
  assert.ok(versionOk("3.11.2", "3.11") && !versionOk("3.10.9", "3.11"));
});

test("the client serves Python files and the Python cells of Jupyter notebooks", async () => {
  const log = path.join(tempDir(), "log.jsonl");
  const { ctx, manager } = await start({ "shapehint.interpreter": fakeInterpreter(log) });
  try {
    const selector = manager.client.clientOptions.documentSelector;
    assert.deepStrictEqual(selector.filter((f) => f.notebook), [{ notebook: "jupyter-notebook", language: "python" }]);
    assert.ok(selector.some((f) => f.scheme === "file" && f.language === "python"));
  } finally { await dispose(ctx); }
});
