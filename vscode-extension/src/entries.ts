/**
 * Which function or class the cursor is in, from the text alone (no server round trip).
 *
 * `entryAt` names what Run Shapes runs (`Net`, `Net.forward`, `helper`, or undefined for the
 * whole file); `functionAt` names the function Annotate Function migrates (`Net.forward`,
 * `helper`). Both follow Python's indentation: a line belongs to the nearest `def`/`class`
 * header above it with a smaller indentation. Tests: tests/entries.test.js.
 */

const HEADER = /^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_][A-Za-z0-9_]*)/;

interface Scope {
  kind: "def" | "class";
  name: string;
  indent: number;
}

function indentOf(line: string): number {
  const m = /^[ \t]*/.exec(line);
  return m ? m[0].replace(/\t/g, "        ").length : 0;
}

/** The chain of enclosing scopes of `line`, outermost first. */
export function scopesAt(text: string, line: number): Scope[] {
  const lines = text.split(/\r?\n/);
  const blank = (s: string) => /^\s*(#.*)?$/.test(s);
  let i = Math.min(Math.max(line, 0), lines.length - 1);
  // On a blank or comment line, the scope is that of the nearest code line above.
  while (i > 0 && blank(lines[i])) i--;
  const chain: Scope[] = [];
  let limit = indentOf(lines[i]) + 1; // the cursor's own line may be a header
  for (; i >= 0 && limit > 0; i--) {
    if (blank(lines[i])) continue;
    const indent = indentOf(lines[i]);
    if (indent >= limit) continue;
    const m = HEADER.exec(lines[i]);
    if (m) chain.unshift({ kind: m[2] as "def" | "class", name: m[3], indent });
    limit = indent; // a less indented statement (if/for/with or a header) encloses what is below
  }
  return chain.length && chain[0].indent === 0 ? chain : [];
}

/** The device-run entry for the cursor: a top-level class (or one of its methods) or function. */
export function entryAt(text: string, line: number): string | undefined {
  const chain = scopesAt(text, line);
  if (chain.length === 0) return undefined;
  const [top, next] = chain;
  if (top.kind === "class" && next && next.kind === "def") return `${top.name}.${next.name}`;
  return top.name;
}

/** The qualified name of the innermost function around the cursor (`Net.forward`). */
export function functionAt(text: string, line: number): string | undefined {
  const chain = scopesAt(text, line);
  let last = -1;
  chain.forEach((s, i) => { if (s.kind === "def") last = i; });
  if (last < 0) return undefined;
  return chain.slice(0, last + 1).map((s) => s.name).join(".");
}
