/**
 * The status-bar item: the server's state (from the shapehint/status notification and the
 * client's own state) and the last device-run result. Clicking it shows the output.
 * Tests: tests/commands.test.js.
 */
import * as vscode from "vscode";

export type ServerState = "starting" | "analysing" | "idle" | "error" | "stopped";

const ICONS: Record<ServerState, string> = {
  starting: "$(loading~spin)",
  analysing: "$(sync~spin)",
  idle: "$(check)",
  error: "$(error)",
  stopped: "$(circle-slash)",
};

export interface RunSummary {
  text: string;      // short, for the status bar: "3 ✓ 1 ✗"
  detail: string;    // one sentence, for the tooltip, the output and the notification
  failed: boolean;
}

/** A short description of a device-run result (the `shapehint run` JSON object). */
export function summarizeRun(result: any): RunSummary {
  if (!result || typeof result !== "object") return { text: "no result", detail: "The device run returned nothing.", failed: true };
  const device = result.device ? ` on ${result.device}` : "";
  const err = result.error;
  if (err && (err.type === "Untrusted" || !result.summary)) {
    const msg = typeof err === "string" ? err : `${err.type ?? "error"}: ${err.message ?? ""}`;
    return { text: err.type === "Untrusted" ? "refused" : "error", detail: `Run Shapes${device}: ${msg}`, failed: true };
  }
  const s = result.summary ?? {};
  const match = s.match ?? 0;
  const mismatch = s.mismatch ?? 0;
  const parts = [`${match} match`, `${mismatch} mismatch`];
  if (s["not-inferred"]) parts.push(`${s["not-inferred"]} not inferred`);
  if (s["not-observable"]) parts.push(`${s["not-observable"]} not observable`);
  let detail = `Run Shapes${device}: ${parts.join(", ")}`;
  if (err) {
    // The error's type and line; its (often long) message goes to the output and the tooltip.
    const where = err.line ? ` on line ${err.line}` : "";
    detail += `; ${typeof err === "string" ? err : `${err.type ?? "error"}${where}`}`;
  }
  return { text: `${match} ✓ ${mismatch} ✗${err ? " · error" : ""}`, detail: `${detail}.`.replace(/\.\.$/, "."),
    failed: mismatch > 0 || Boolean(err) };
}

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  state: ServerState = "stopped";
  message = "";
  run: RunSummary | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem("shapehint.status", vscode.StatusBarAlignment.Left, 10);
    this.item.name = "ShapeHint";
    this.item.command = "shapehint.showOutput";
    this.render();
    this.item.show();
  }

  setState(state: ServerState, message?: string): void {
    this.state = state;
    this.message = message ?? "";
    this.render();
  }

  setRun(run: RunSummary | undefined): void {
    this.run = run;
    this.render();
  }

  render(): void {
    const runText = this.run ? ` · run: ${this.run.text}` : "";
    this.item.text = `${ICONS[this.state]} ShapeHint${runText}`;
    const lines = [`ShapeHint: ${this.state}${this.message ? ` — ${this.message}` : ""}`];
    if (this.run) lines.push(this.run.detail);
    lines.push("Click to show the output.");
    this.item.tooltip = lines.join("\n");
    this.item.backgroundColor = this.state === "error" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
