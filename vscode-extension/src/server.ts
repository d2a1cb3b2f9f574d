/**
 * The language client's life cycle: one debounced, serialized restart path for every cause.
 *
 * `restart(reason)` is the only way the server starts or restarts (activation, a setting or
 * interpreter change, workspace trust, the Restart Server command). Calls within DEBOUNCE_MS
 * coalesce into one run; runs never overlap (each waits for the previous stop). A run resolves
 * the interpreter, probes it (interpreter.ts), then starts `python shapehint_launch.py serve`.
 * Tests: tests/startup.test.js, tests/restart.test.js.
 */
import * as path from "path";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions, State, TransportKind,
} from "vscode-languageclient/node";
import {
  DEFAULT_SERVER_INFO, describe, isFailure, plan, resolveInterpreter, ServerInfo, StartFailure, StartPlan,
} from "./interpreter";
import { StatusBar, summarizeRun } from "./status";

export const DEBOUNCE_MS = 300;
export const SECTION = "shapehint";
export const DEVICE_RUN = "shapehint.deviceRun";

export interface ServerPaths {
  launcher: string;
  libs: string | undefined; // undefined when the extension carries no bundled libraries
}

export function serverPaths(extensionPath: string, exists: (p: string) => boolean): ServerPaths {
  const libs = path.join(extensionPath, "bundled", "libs");
  return {
    launcher: path.join(extensionPath, "python", "shapehint_launch.py"),
    libs: exists(path.join(libs, "shapehint", "__init__.py")) ? libs : undefined,
  };
}

/** Every contributed setting, flat (`shapehint.solver.timeoutMs`), as sent in initializationOptions. */
export function currentSettings(settingNames: string[], resource?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(undefined, resource);
  const out: Record<string, unknown> = {};
  for (const name of settingNames) out[name] = config.get(name);
  return out;
}

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  lastPlan: StartPlan | StartFailure | undefined;
  runs = 0; // how many times runServer ran (tests check the debounce)
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiting: Array<() => void> = [];
  private queue: Promise<void> = Promise.resolve();
  private reasons: string[] = [];
  private disposed = false;

  constructor(
    private readonly paths: ServerPaths,
    private readonly settingNames: string[],
    readonly output: vscode.LogOutputChannel,
    readonly status: StatusBar,
    private readonly info: ServerInfo = DEFAULT_SERVER_INFO,
  ) {}

  /** Schedule a (re)start; resolves when the coalesced run has finished. */
  restart(reason: string): Promise<void> {
    this.reasons.push(reason);
    if (this.timer) clearTimeout(this.timer);
    const done = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const waiting = this.waiting.splice(0);
      const reasons = this.reasons.splice(0);
      this.queue = this.queue.then(() => this.runServer(reasons)).catch((err) => {
        this.output.error(`ShapeHint: restart failed: ${err?.stack ?? err}`);
      }).finally(() => waiting.forEach((w) => w()));
    }, DEBOUNCE_MS);
    return done;
  }

  private async runServer(reasons: string[]): Promise<void> {
    this.runs++;
    await this.stop();
    if (this.disposed) return;
    this.output.info(`(re)starting the server: ${[...new Set(reasons)].join(", ")}`);
    this.status.setState("starting");
    const resource = vscode.window.activeTextEditor?.document.uri;
    const interp = await resolveInterpreter(resource);
    this.output.info(`interpreter: ${describe(interp)}`);
    const result = await plan(interp, this.paths.launcher, this.paths.libs, this.info);
    this.lastPlan = result;
    result.notes.forEach((n) => this.output.warn(n));
    if (isFailure(result)) {
      this.status.setState("error", result.message);
      this.output.error(result.message);
      void this.showFailure(result);
      return;
    }
    this.output.info(`Python ${result.python} at ${result.executable}; server from the ${result.source} libraries`);
    const client = this.createClient(result);
    this.client = client;
    try {
      await client.start();
    } catch (err: any) {
      this.status.setState("error", `the server did not start: ${err?.message ?? err}`);
      this.output.error(`the server did not start: ${err?.stack ?? err}`);
      return;
    }
    if (this.status.state === "starting") this.status.setState("idle");
  }

  private async showFailure(failure: StartFailure): Promise<void> {
    const actions = failure.installCommand ? ["Copy Install Command", "Show Output"] : ["Show Output"];
    const choice = await vscode.window.showErrorMessage(failure.message, ...actions);
    if (choice === "Copy Install Command" && failure.installCommand) {
      await vscode.env.clipboard.writeText(failure.installCommand);
    } else if (choice === "Show Output") {
      this.output.show();
    }
  }

  createClient(p: StartPlan): LanguageClient {
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverOptions: ServerOptions = {
      command: p.command, args: p.args, transport: TransportKind.stdio,
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      // Python files, and the Python cells of Jupyter notebooks (synchronised as notebooks:
      // the server analyses a notebook's code cells together, as one module)
      documentSelector: [{ scheme: "file", language: "python" }, { scheme: "untitled", language: "python" },
        { notebook: "jupyter-notebook", language: "python" }],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      initializationOptions: {
        settings: currentSettings(this.settingNames),
        trusted: vscode.workspace.isTrusted,
        interpreter: p.executable,
      },
      synchronize: { configurationSection: SECTION },
      middleware: {
        // Every device run, from Run Shapes or from a server code lens, says whether the
        // workspace is trusted; an untrusted one is refused here, with the reason.
        executeCommand: async (command, args, next) => {
          if (command !== DEVICE_RUN) return next(command, args);
          if (!vscode.workspace.isTrusted) {
            void vscode.window.showWarningMessage(UNTRUSTED_MESSAGE);
            return undefined;
          }
          const [first, ...rest] = args;
          const withTrust = first && typeof first === "object" ? { ...first, trusted: true } : { trusted: true };
          return next(command, [withTrust, ...rest]);
        },
      },
    };
    const client = new LanguageClient("shapehint", "ShapeHint", serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (e.newState === State.Starting) this.status.setState("starting");
      else if (e.newState === State.Stopped && this.client === client) this.status.setState("stopped");
    });
    client.onNotification("shapehint/status", (params: { state?: string; message?: string }) => {
      const state = params?.state;
      if (state === "starting" || state === "analysing" || state === "idle" || state === "error") {
        this.status.setState(state, params.message);
      }
    });
    client.onNotification("shapehint/deviceRunResult", (params: { uri?: string; summary?: unknown }) => {
      this.status.setRun(summarizeRun({ summary: params?.summary, ...(params as object) }));
    });
    return client;
  }

  /** workspace/executeCommand on the running server. */
  async execute(command: string, args: unknown[], token?: vscode.CancellationToken): Promise<any> {
    if (!this.client || !this.client.isRunning()) {
      throw new Error("the ShapeHint server is not running (see ShapeHint: Show Output)");
    }
    return this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await client.stop(2000);
    } catch (err: any) {
      this.output.warn(`stopping the server: ${err?.message ?? err}`);
    }
    try { await client.dispose(); } catch { /* already stopped */ }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.splice(0).forEach((w) => w()); // a restart that will not run now
    await this.queue;
    await this.stop();
  }
}

export const UNTRUSTED_MESSAGE = "ShapeHint: Run Shapes executes this file's code, so it is disabled in an untrusted " +
  "workspace. Analysis still works. To run shapes, trust the workspace (Workspaces: Manage Workspace Trust).";
