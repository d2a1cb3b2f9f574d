/**
 * Test harness: the fake vscode module installed before the compiled extension (out/) and the
 * real vscode-languageclient are loaded; helpers to activate the extension with a fake Python.
 */
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const vscode = require("./fake-vscode");

vscode.install();

const EXT = path.resolve(__dirname, "..", "..");
const OUT = path.join(EXT, "out");
if (!fs.existsSync(path.join(OUT, "extension.js"))) {
  throw new Error("vscode-extension/out is missing: run `npm run build` (tsc) first");
}
const manifest = JSON.parse(fs.readFileSync(path.join(EXT, "package.json"), "utf8"));
vscode.setDefaults(Object.fromEntries(Object.entries(manifest.contributes.configuration.properties)
  .map(([name, prop]) => [name, prop.default])));
const FAKE_PYTHON = path.join(__dirname, "fake-python.js");

function load(name) {
  return require(path.join(OUT, name));
}

const temps = [];
process.on("exit", () => temps.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shapehint-ext-test-"));
  temps.push(dir);
  return dir;
}

/** `shapehint.interpreter` for the fake Python with options (`{version: "3.9.1", bundled: "fail"}`). */
function fakeInterpreter(log, options = {}) {
  return [process.execPath, FAKE_PYTHON, `--log=${log}`, ...Object.entries(options).map(([k, v]) => `--${k}=${v}`)];
}

function events(log) {
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** A fake extension context whose extensionPath has (or lacks) bundled libraries. */
function context({ bundled = true } = {}) {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, "python"), { recursive: true });
  if (bundled) {
    fs.mkdirSync(path.join(dir, "bundled", "libs", "shapehint"), { recursive: true });
    fs.writeFileSync(path.join(dir, "bundled", "libs", "shapehint", "__init__.py"), "");
  }
  return { extensionPath: dir, subscriptions: [], extension: { packageJSON: manifest } };
}

async function dispose(ctx) {
  for (const d of ctx.subscriptions.splice(0)) {
    try { await d.dispose(); } catch { /* best effort */ }
  }
  const ext = load("extension.js");
  await ext.deactivate();
}

function editor(text, line, file = "/work/model.py") {
  return {
    document: { uri: vscode.Uri.file(file), languageId: "python", getText: () => text },
    selection: { active: new vscode.Position(line, 0) },
  };
}

async function until(fn, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

module.exports = { vscode, load, manifest, tempDir, fakeInterpreter, events, context, dispose, editor, until, EXT };
