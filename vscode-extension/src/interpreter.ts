/**
 * Choosing the Python that runs the server, and checking it.
 *
 * Order (as in vscode-python-tools-extension-template): the `shapehint.interpreter` setting,
 * else the Python extension's active environment when that extension is installed, else
 * `python3`. `probe` then runs the launcher in that interpreter to learn its version and
 * whether the server imports from the bundled libraries or, failing that, from the
 * interpreter's own packages; `plan` turns the probes into a start plan or a message that says
 * exactly what to do. Tests: tests/startup.test.js.
 */
import { execFile } from "child_process";
import * as vscode from "vscode";

export const PYTHON_EXTENSION = "ms-python.python";

/** package.json's `serverInfo`: the distribution to install and the oldest Python it supports. */
export interface ServerInfo {
  module: string;
  minimumPython: string;
}
export const DEFAULT_SERVER_INFO: ServerInfo = { module: "shapehint", minimumPython: "3.10" };

export type InterpreterSource = "setting" | "python-extension" | "default";

export interface Interpreter {
  command: string[];
  source: InterpreterSource;
}

export interface Probe {
  ok: boolean;
  python?: string;
  executable?: string;
  source?: "bundled" | "installed";
  error?: string | null;
}

export interface StartPlan {
  command: string;
  args: string[];
  source: "bundled" | "installed";
  python: string;
  executable: string;
  notes: string[];
}

export interface StartFailure {
  message: string;
  installCommand?: string;
  notes: string[];
}

function substitute(arg: string, folder?: vscode.WorkspaceFolder): string {
  const root = folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  const home = process.env.HOME ?? "";
  return arg.replace(/\$\{workspaceFolder\}/g, root).replace(/^~(?=\/|$)/, home);
}

/** The Python extension's active interpreter for `resource`, if that extension is installed. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string[] | undefined> {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION);
  if (!ext) return undefined;
  try {
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const envs = api?.environments;
    if (envs?.getActiveEnvironmentPath) {
      const active = envs.getActiveEnvironmentPath(resource);
      const resolved = await envs.resolveEnvironment(active);
      const exe = resolved?.executable?.uri?.fsPath ?? active?.path;
      if (exe) return [exe];
    }
    const details = api?.settings?.getExecutionDetails?.(resource);
    if (details?.execCommand?.length) return details.execCommand;
  } catch {
    // An unusable Python extension is the same as none: fall back to python3.
  }
  return undefined;
}

export async function resolveInterpreter(resource?: vscode.Uri): Promise<Interpreter> {
  const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : vscode.workspace.workspaceFolders?.[0];
  const configured = vscode.workspace.getConfiguration("shapehint", folder?.uri).get<string[]>("interpreter") ?? [];
  if (Array.isArray(configured) && configured.length > 0 && configured[0]) {
    return { command: configured.map((a) => substitute(a, folder)), source: "setting" };
  }
  const fromExtension = await pythonExtensionInterpreter(resource ?? folder?.uri);
  if (fromExtension) return { command: fromExtension, source: "python-extension" };
  return { command: ["python3"], source: "default" };
}

export function describe(interp: Interpreter): string {
  const where = { setting: "the shapehint.interpreter setting", "python-extension": "the Python extension",
    default: "the default" }[interp.source];
  return `${interp.command.join(" ")} (from ${where})`;
}

/** Runs `launcher probe <source> <libs>` in the interpreter; never throws. */
export function probe(interp: Interpreter, launcher: string, source: "bundled" | "installed", libs: string,
  timeoutMs = 30000): Promise<Probe> {
  const [cmd, ...pre] = interp.command;
  return new Promise((resolve) => {
    execFile(cmd, [...pre, launcher, "probe", source, libs], { timeout: timeoutMs, encoding: "utf8" },
      (err, stdout, stderr) => {
        const line = String(stdout ?? "").trim().split(/\r?\n/).pop() ?? "";
        try {
          const parsed = JSON.parse(line);
          if (parsed && typeof parsed === "object") return resolve(parsed as Probe);
        } catch { /* reported below */ }
        const why = err ? (err as NodeJS.ErrnoException).code === "ENOENT" ? `${cmd} was not found` : String(err.message)
          : "no answer";
        resolve({ ok: false, error: `${why}${stderr ? `: ${String(stderr).trim().split(/\r?\n/).pop()}` : ""}` });
      });
  });
}

export function versionOk(version: string | undefined, minimum = DEFAULT_SERVER_INFO.minimumPython): boolean {
  if (!version) return false;
  const [major, minor] = version.split(".").map((n) => parseInt(n, 10));
  const [wantMajor, wantMinor] = minimum.split(".").map((n) => parseInt(n, 10));
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, "\\$1")}"`;
}

export function installCommand(executable: string, info = DEFAULT_SERVER_INFO): string {
  return `${quote(executable)} -m pip install ${info.module}`;
}

/**
 * The start plan: the bundled libraries when they load in this interpreter, else a shapehint
 * installed in it, else a failure naming the exact install command.
 */
export async function plan(interp: Interpreter, launcher: string, libs: string | undefined,
  info: ServerInfo = DEFAULT_SERVER_INFO): Promise<StartPlan | StartFailure> {
  const notes: string[] = [];
  const [cmd, ...pre] = interp.command;
  const first = await probe(interp, launcher, libs ? "bundled" : "installed", libs ?? "");
  if (!first.python) {
    return { message: `ShapeHint cannot run the Python interpreter ${describe(interp)}: ${first.error ?? "unknown error"}. ` +
      `Select an interpreter with "Python: Select Interpreter" or set shapehint.interpreter.`, notes };
  }
  const exe = first.executable || cmd;
  if (!versionOk(first.python, info.minimumPython)) {
    return { message: `ShapeHint needs Python ≥ ${info.minimumPython}, but ${describe(interp)} is Python ${first.python}. ` +
      `Select another interpreter with "Python: Select Interpreter" or set shapehint.interpreter.`, notes };
  }
  const serve = (source: "bundled" | "installed"): StartPlan => ({
    command: cmd, args: [...pre, launcher, "serve", source, ...(source === "bundled" ? [libs ?? ""] : [])],
    source, python: first.python!, executable: exe, notes,
  });
  if (libs && first.ok) return serve("bundled");
  if (libs) notes.push(`The bundled server does not load in Python ${first.python} (${first.error}); trying one installed in ${exe}.`);
  const installed = libs ? await probe(interp, launcher, "installed", "") : first;
  if (installed.ok) return serve("installed");
  notes.push(`${info.module} is not importable with ${exe}: ${installed.error}`);
  const install = installCommand(exe, info);
  return { message: `ShapeHint cannot start: the server is not importable with ${exe} (Python ${first.python}). ` +
    `Install it with: ${install}`, installCommand: install, notes };
}

export function isFailure(p: StartPlan | StartFailure): p is StartFailure {
  return (p as StartFailure).message !== undefined;
}
