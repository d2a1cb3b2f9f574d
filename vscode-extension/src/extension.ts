/**
 * ShapeHint for VS Code: starts the ShapeHint language server and wires its commands, status
 * and settings. Module map: interpreter.ts (which Python, version and import checks),
 * server.ts (the client and the one restart path), commands.ts, status.ts, entries.ts.
 * Tests: tests/*.test.js (node --test, real vscode-languageclient, fake vscode module) and
 * tests/e2e-vscode/ at the repository root (code-server + Chromium).
 */
import * as fs from "fs";
import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { DEFAULT_SERVER_INFO, PYTHON_EXTENSION, ServerInfo } from "./interpreter";
import { SECTION, ServerManager, serverPaths } from "./server";
import { StatusBar } from "./status";

let manager: ServerManager | undefined;

/** Setting changes that need a new server process; the rest reach it as didChangeConfiguration. */
export const RESTART_SETTINGS = [`${SECTION}.interpreter`];

export async function activate(context: vscode.ExtensionContext): Promise<ServerManager> {
  const output = vscode.window.createOutputChannel("ShapeHint", { log: true });
  const status = new StatusBar();
  const pkg = context.extension.packageJSON ?? {};
  const settingNames = Object.keys(pkg.contributes?.configuration?.properties ?? {});
  const info: ServerInfo = { ...DEFAULT_SERVER_INFO, ...(pkg.serverInfo ?? {}) };
  const paths = serverPaths(context.extensionPath, fs.existsSync);
  manager = new ServerManager(paths, settingNames, output, status, info);
  const m = manager;
  context.subscriptions.push(output, status, { dispose: () => void m.dispose() }, ...registerCommands(m));

  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) void m.restart("setting changed");
  }));
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void m.restart("workspace trusted")));
  await watchPythonExtension(context, m);

  await m.restart("activation");
  return m;
}

/** Restart when the Python extension's active environment changes (and no setting overrides it). */
async function watchPythonExtension(context: vscode.ExtensionContext, m: ServerManager): Promise<void> {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION);
  if (!ext) return;
  try {
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const event = api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
    if (typeof event === "function") {
      context.subscriptions.push(event(() => {
        const configured = vscode.workspace.getConfiguration(SECTION).get<string[]>("interpreter") ?? [];
        if (!configured.length) void m.restart("Python interpreter changed");
      }));
    }
  } catch (err: any) {
    m.output.warn(`the Python extension's API is not available: ${err?.message ?? err}`);
  }
}

export async function deactivate(): Promise<void> {
  const m = manager;
  manager = undefined;
  if (m) await m.dispose();
}
