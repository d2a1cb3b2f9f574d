/**
 * A hand-written stand-in for the `vscode` module, enough for the real vscode-languageclient
 * and the extension to run under `node --test`. `install()` swaps it in for require("vscode")
 * (Module._resolveFilename hook); `reset(opts)` gives each test fresh settings, folders,
 * trust, extensions and message answers, and the recorded `calls`.
 * Unknown namespace members fall back to no-op events (`onDid…`) and disposable-returning
 * functions, so new client features do not break the tests.
 */
"use strict";
const Module = require("module");
const path = require("path");

class Disposable {
  constructor(fn) { this._fn = fn; }
  static from(...items) { return new Disposable(() => items.forEach((i) => i && i.dispose && i.dispose())); }
  dispose() { if (this._fn) { this._fn(); this._fn = undefined; } }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (fn, thisArg) => {
      const l = thisArg ? fn.bind(thisArg) : fn;
      this.listeners.add(l);
      return new Disposable(() => this.listeners.delete(l));
    };
  }
  fire(e) { for (const l of [...this.listeners]) l(e); }
  dispose() { this.listeners.clear(); }
}

class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this._emitter = emitter;
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
  }
  cancel() { this.token.isCancellationRequested = true; this._emitter.fire(); }
  dispose() {}
}

class Uri {
  constructor(scheme, fsPath) { this.scheme = scheme; this.path = fsPath; this.fsPath = fsPath; this.authority = ""; this.query = ""; this.fragment = ""; }
  static file(p) { return new Uri("file", path.resolve(p)); }
  static parse(s) { const m = /^(\w+):\/\/(.*)$/.exec(s); return m ? new Uri(m[1], decodeURIComponent(m[2])) : new Uri("file", s); }
  static joinPath(u, ...parts) { return new Uri(u.scheme, path.join(u.fsPath, ...parts)); }
  with(change) { return Object.assign(new Uri(this.scheme, this.fsPath), change); }
  toString() { return `${this.scheme}://${encodeURI(this.fsPath)}`; }
  toJSON() { return this.toString(); }
}

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === "number") { this.start = new Position(a, b); this.end = new Position(c, d); }
    else { this.start = a; this.end = b; }
  }
}
class Selection extends Range {
  constructor(a, b, c, d) { super(a, b, c, d); this.anchor = this.start; this.active = this.end; }
}
class ThemeColor { constructor(id) { this.id = id; } }
class MarkdownString { constructor(value = "") { this.value = value; } appendMarkdown(v) { this.value += v; return this; } }

// Classes the language client subclasses or checks with instanceof: own properties, data holders.
function dataClass(name) {
  return { [name]: class { constructor(...args) { this.args = args; } } }[name];
}
const DATA_CLASSES = ["CompletionItem", "CodeLens", "DocumentLink", "InlayHint", "SymbolInformation",
  "CallHierarchyItem", "TypeHierarchyItem", "CodeAction", "Diagnostic", "DiagnosticRelatedInformation",
  "Location", "Hover", "TextEdit", "WorkspaceEdit", "SnippetString", "SnippetTextEdit", "CompletionList",
  "SignatureHelp", "SignatureInformation", "ParameterInformation", "DocumentHighlight", "DocumentSymbol",
  "FoldingRange", "SelectionRange", "Color", "ColorInformation", "ColorPresentation", "SemanticTokens",
  "SemanticTokensEdit", "SemanticTokensEdits", "LinkedEditingRanges", "InlayHintLabelPart",
  "InlineCompletionItem", "InlineCompletionList", "InlineValueText", "InlineValueVariableLookup",
  "InlineValueEvaluatableExpression", "CallHierarchyIncomingCall", "CallHierarchyOutgoingCall",
  "RelativePattern", "TabInputText", "TabInputTextDiff", "TabInputNotebook", "NotebookCellData",
  "NotebookRange", "CancellationError", "CodeActionKind", "DocumentDropEdit", "TreeItem"];

// Enums: any member name maps to a stable number.
function enumProxy() {
  const known = new Map();
  return new Proxy({}, { get: (_t, k) => (typeof k === "string" ? (known.has(k) ? known.get(k) : (known.set(k, known.size + 1), known.size)) : undefined) });
}

// A namespace: explicit members, else `onX` events and functions returning disposables.
function namespace(members) {
  return new Proxy(members, {
    get(target, key) {
      if (key in target) return target[key];
      if (typeof key !== "string") return undefined;
      if (/^on[A-Z]/.test(key)) return () => new Disposable();
      return () => new Disposable();
    },
  });
}

function outputChannel(name, calls) {
  const lines = [];
  const add = (level) => (msg, ...rest) => { lines.push(`[${level}] ${[msg, ...rest].join(" ")}`); };
  return {
    name, lines, logLevel: 2, onDidChangeLogLevel: () => new Disposable(),
    append: (s) => lines.push(s), appendLine: (s) => lines.push(s), replace: () => {}, clear: () => { lines.length = 0; },
    trace: add("trace"), debug: add("debug"), info: add("info"), warn: add("warn"), error: add("error"),
    show: () => calls.push(["output.show", name]), hide: () => {}, dispose: () => {},
  };
}

const state = {};
const defaults = {}; // the manifest's defaults, as VS Code reports them for unset settings
function setDefaults(values) { Object.assign(defaults, values); }

function reset(opts = {}) {
  state.settings = { ...(opts.settings || {}) };
  state.trusted = opts.trusted !== false;
  state.folders = (opts.folders || []).map((f, i) => ({ uri: Uri.file(f), name: path.basename(f), index: i }));
  state.extensions = opts.extensions || {};
  state.answers = opts.answers || {};
  state.calls = [];
  state.commands = new Map();
  state.configEmitter = new EventEmitter();
  state.trustEmitter = new EventEmitter();
  state.activeTextEditor = opts.activeTextEditor;
  state.statusItems = [];
  state.clipboard = undefined;
  return state;
}
reset();

function configuration(section) {
  const full = (key) => (section ? `${section}.${key}` : key);
  return {
    get(key, dflt) {
      const name = full(key);
      if (name in state.settings) return state.settings[name];
      if (name in defaults) return defaults[name];
      const nested = Object.keys(state.settings).filter((k) => k.startsWith(`${name}.`));
      if (nested.length) {
        const out = {};
        for (const k of nested) {
          const parts = k.slice(name.length + 1).split(".");
          let o = out;
          parts.slice(0, -1).forEach((p) => { o = o[p] = o[p] || {}; });
          o[parts[parts.length - 1]] = state.settings[k];
        }
        return out;
      }
      return dflt;
    },
    has: (key) => full(key) in state.settings,
    inspect: (key) => ({ key: full(key), globalValue: state.settings[full(key)] }),
    update: async (key, value) => { state.settings[full(key)] = value; },
  };
}

function message(kind) {
  return async (msg, ...items) => {
    state.calls.push([kind, msg, ...items.filter((i) => typeof i === "string")]);
    const answer = state.answers[kind];
    return typeof answer === "function" ? answer(msg, items) : answer;
  };
}

const vscode = {
  __esModule: true,
  version: "1.91.0",
  Disposable, EventEmitter, CancellationTokenSource, Uri, Position, Range, Selection, ThemeColor, MarkdownString,
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  TextDocumentSaveReason: enumProxy(), CompletionItemKind: enumProxy(), SymbolKind: enumProxy(),
  DiagnosticTag: enumProxy(), CompletionItemTag: enumProxy(), SymbolTag: enumProxy(), FileType: enumProxy(),
  FoldingRangeKind: enumProxy(), DocumentHighlightKind: enumProxy(), CodeActionTriggerKind: enumProxy(),
  CompletionTriggerKind: enumProxy(), SignatureHelpTriggerKind: enumProxy(), InlineCompletionTriggerKind: enumProxy(),
  NotebookCellKind: { Markup: 1, Code: 2 }, InlayHintKind: { Type: 1, Parameter: 2 }, EndOfLine: { LF: 1, CRLF: 2 },
  UIKind: { Desktop: 1, Web: 2 }, ExtensionMode: { Production: 1, Development: 2, Test: 3 },
  LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
  workspace: namespace({
    get workspaceFolders() { return state.folders.length ? state.folders : undefined; },
    get isTrusted() { return state.trusted; },
    textDocuments: [], notebookDocuments: [],
    getWorkspaceFolder: (uri) => state.folders.find((f) => uri && uri.fsPath.startsWith(f.uri.fsPath)),
    getConfiguration: (section) => configuration(section),
    onDidChangeConfiguration: (fn) => state.configEmitter.event(fn),
    onDidGrantWorkspaceTrust: (fn) => state.trustEmitter.event(fn),
    asRelativePath: (u) => path.basename(typeof u === "string" ? u : u.fsPath),
    createFileSystemWatcher: () => ({ onDidCreate: () => new Disposable(), onDidChange: () => new Disposable(), onDidDelete: () => new Disposable(), dispose() {} }),
  }),
  window: namespace({
    get activeTextEditor() { return state.activeTextEditor; },
    visibleTextEditors: [], visibleNotebookEditors: [], tabGroups: { all: [], onDidChangeTabs: () => new Disposable() },
    createOutputChannel: (name) => { const c = outputChannel(name, state.calls); state.output = c; return c; },
    createStatusBarItem: (id) => {
      const item = { id, text: "", tooltip: "", show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
      state.statusItems.push(item);
      return item;
    },
    showErrorMessage: message("error"), showWarningMessage: message("warning"), showInformationMessage: message("info"),
    withProgress: async (options, task) => {
      state.calls.push(["progress", options.title]);
      return task({ report() {} }, new CancellationTokenSource().token);
    },
  }),
  languages: namespace({
    createDiagnosticCollection: (name) => {
      const map = new Map();
      return { name, set: (u, d) => map.set(String(u), d), get: (u) => map.get(String(u)), delete: (u) => map.delete(String(u)),
        clear: () => map.clear(), forEach: (fn) => map.forEach((d, u) => fn(Uri.parse(u), d)), has: (u) => map.has(String(u)), dispose() {} };
    },
    match: () => 0,
  }),
  commands: namespace({
    registerCommand: (id, fn) => {
      if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
      state.commands.set(id, fn);
      return new Disposable(() => state.commands.delete(id));
    },
    executeCommand: async (id, ...args) => {
      const fn = state.commands.get(id);
      if (!fn) throw new Error(`command '${id}' not found`);
      return fn(...args);
    },
    getCommands: async () => [...state.commands.keys()],
  }),
  extensions: namespace({ getExtension: (id) => state.extensions[id] }),
  env: namespace({
    appName: "Fake Code", language: "en", machineId: "fake", uiKind: 1,
    clipboard: { writeText: async (t) => { state.clipboard = t; } },
    openExternal: async () => true,
  }),
  debug: namespace({}), tasks: namespace({}), notebooks: namespace({}), tests: namespace({}), scm: namespace({}),
  l10n: { t: (s, ...args) => String(s).replace(/\{(\d+)\}/g, (_m, i) => args[i]) },
};
for (const name of DATA_CLASSES) vscode[name] = dataClass(name);
vscode.CodeActionKind = { Empty: "", QuickFix: { value: "quickfix" }, Refactor: { value: "refactor" }, Source: { value: "source" } };

function install() {
  const original = Module._resolveFilename;
  const fake = require.resolve(__filename);
  Module._resolveFilename = function (request, ...rest) {
    if (request === "vscode") return fake;
    return original.call(this, request, ...rest);
  };
}

// `require("vscode")` resolves to this file, so the fake is its own export.
module.exports = Object.assign(vscode, { install, reset, state, setDefaults });
