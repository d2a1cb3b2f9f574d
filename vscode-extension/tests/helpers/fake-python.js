#!/usr/bin/env node
/**
 * A fake Python for the unit tests: `shapehint.interpreter` = [node, this file, ...options].
 * It answers the launcher's `probe` like shapehint_launch.py and, for `serve`, speaks LSP over
 * stdio with vscode-jsonrpc (a dependency of vscode-languageclient), recording what it receives.
 * Options: --version=3.11.4, --bundled=ok|fail, --installed=ok|fail, --log=FILE (JSON lines).
 */
"use strict";
const fs = require("fs");

const opts = {};
const rest = [];
for (const a of process.argv.slice(2)) {
  const m = /^--(\w+)=(.*)$/.exec(a);
  if (m) opts[m[1]] = m[2]; else rest.push(a);
}
const [, mode, source] = rest; // [launcher, probe|serve, bundled|installed, libs?]
const version = opts.version || "3.11.4";
function record(event) {
  if (opts.log) fs.appendFileSync(opts.log, JSON.stringify({ pid: process.pid, ...event }) + "\n");
}

if (mode === "probe") {
  const ok = (opts[source] || "ok") === "ok";
  record({ event: "probe", source });
  process.stdout.write(JSON.stringify({ python: version, executable: "/fake/bin/python", source, ok,
    error: ok ? null : `ModuleNotFoundError: No module named 'shapehint' (${source})` }) + "\n");
  process.exit(0);
}

const rpc = require("vscode-jsonrpc/node");
const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout));
record({ event: "serve", source, argv: process.argv.slice(2) });
conn.onRequest("initialize", (params) => {
  record({ event: "initialize", initializationOptions: params.initializationOptions });
  return { capabilities: { textDocumentSync: 1,
    executeCommandProvider: { commands: ["shapehint.deviceRun", "shapehint.annotateFunction"] } },
  serverInfo: { name: "fake-shapehint" } };
});
conn.onNotification("initialized", () => {
  conn.sendNotification("shapehint/status", { state: "analysing" });
  conn.sendNotification("shapehint/status", { state: "idle" });
});
conn.onNotification("workspace/didChangeConfiguration", (p) => record({ event: "didChangeConfiguration", settings: p.settings }));
conn.onRequest("workspace/executeCommand", (p) => {
  record({ event: "executeCommand", command: p.command, arguments: p.arguments });
  if (p.command === "shapehint.deviceRun") {
    return { device: "cpu", entry: p.arguments[0].entry, error: null,
      summary: { match: 3, mismatch: 1, "not-inferred": 0, "not-observable": 0 },
      mismatches: [{ line: 4, name: "h", observed: [2, 120], inferred: [2, 128] }] };
  }
  return { message: `annotated ${p.arguments[0].function}` };
});
conn.onRequest("shutdown", () => { record({ event: "shutdown" }); return null; });
conn.onNotification("exit", () => process.exit(0));
conn.listen();
