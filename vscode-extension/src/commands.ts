/**
 * The client commands: Restart Server, Run Shapes, Annotate Function, Show Output.
 *
 * Run Shapes and Annotate Function are thin: they name what is under the cursor (entries.ts)
 * and call the server commands shapehint.deviceRun / shapehint.annotateFunction (declared in
 * the repository's shared/commands.json). Device runs are refused in untrusted workspaces
 * with the reason, and carry `trusted` otherwise. Tests: tests/commands.test.js.
 */
import * as vscode from "vscode";
import { entryAt, functionAt } from "./entries";
import { DEVICE_RUN, SECTION, ServerManager, UNTRUSTED_MESSAGE } from "./server";
import { summarizeRun } from "./status";

export const ANNOTATE_FUNCTION = "shapehint.annotateFunction";

function pythonEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "python") {
    void vscode.window.showInformationMessage("ShapeHint: open a Python file first.");
    return undefined;
  }
  return editor;
}

function errorText(err: any): string {
  return err?.message ?? String(err);
}

export async function runShapes(manager: ServerManager): Promise<any> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(UNTRUSTED_MESSAGE);
    return undefined;
  }
  const editor = pythonEditor();
  if (!editor) return undefined;
  const doc = editor.document;
  const entry = entryAt(doc.getText(), editor.selection.active.line);
  const device = vscode.workspace.getConfiguration(SECTION, doc.uri).get<string>("deviceRun.device") ?? "auto";
  const args: Record<string, unknown> = { uri: doc.uri.toString(), device, trusted: true };
  if (entry) args.entry = entry;
  const what = entry ?? vscode.workspace.asRelativePath(doc.uri);
  manager.output.info(`Run Shapes: ${what} on ${device}`);
  let result: any;
  try {
    // The server reports the run as a cancellable work-done progress (a notification); the
    // window progress here only marks the request in the status bar, without a second toast.
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `ShapeHint: running ${what} (${device})` },
      () => manager.execute(DEVICE_RUN, [args]));
  } catch (err) {
    const msg = `ShapeHint: Run Shapes failed: ${errorText(err)}`;
    manager.output.error(msg);
    manager.status.setRun({ text: "error", detail: msg, failed: true });
    void vscode.window.showErrorMessage(msg);
    return undefined;
  }
  const summary = summarizeRun(result);
  manager.status.setRun(summary);
  manager.output.info(summary.detail);
  if (result?.error?.message) manager.output.info(`  ${result.error.type ?? "error"}: ${result.error.message}`);
  for (const m of result?.mismatches ?? []) {
    manager.output.info(`  line ${m.line}: ${m.name ?? ""} observed ${JSON.stringify(m.observed)} inferred ${JSON.stringify(m.inferred)}`);
  }
  const show = summary.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(summary.detail, "Show Output").then((choice) => { if (choice === "Show Output") manager.output.show(); });
  return result;
}

export async function annotateFunction(manager: ServerManager): Promise<any> {
  const editor = pythonEditor();
  if (!editor) return undefined;
  const doc = editor.document;
  const fn = functionAt(doc.getText(), editor.selection.active.line);
  if (!fn) {
    void vscode.window.showInformationMessage("ShapeHint: put the cursor inside a function to annotate it.");
    return undefined;
  }
  try {
    const result = await manager.execute(ANNOTATE_FUNCTION, [{ uri: doc.uri.toString(), function: fn }]);
    const message = result && typeof result === "object" && typeof result.message === "string" ? result.message : undefined;
    if (message) void vscode.window.showInformationMessage(`ShapeHint: ${message}`);
    return result;
  } catch (err) {
    const msg = `ShapeHint: Annotate Function (${fn}) failed: ${errorText(err)}`;
    manager.output.error(msg);
    void vscode.window.showErrorMessage(msg);
    return undefined;
  }
}

export function registerCommands(manager: ServerManager): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("shapehint.restartServer", () => manager.restart("Restart Server command")),
    vscode.commands.registerCommand("shapehint.runShapes", () => runShapes(manager)),
    vscode.commands.registerCommand("shapehint.annotate", () => annotateFunction(manager)),
    vscode.commands.registerCommand("shapehint.showOutput", () => manager.output.show()),
  ];
}
