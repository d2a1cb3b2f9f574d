"use strict";
// The manifest agrees with the repository's shared/ declarations (settings and commands).
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const path = require("path");
const { manifest, EXT } = require("./helpers/harness");
const { expected } = require("../scripts/sync-settings.js");

const shared = (name) => JSON.parse(fs.readFileSync(path.join(EXT, "..", "shared", name), "utf8"));

test("contributes.configuration is generated from shared/settings.json", () => {
  assert.deepStrictEqual(manifest.contributes.configuration, expected(),
    "run `node vscode-extension/scripts/sync-settings.js`");
  const schema = shared("settings.json");
  assert.deepStrictEqual(Object.keys(manifest.contributes.configuration.properties), Object.keys(schema));
  for (const [name, entry] of Object.entries(schema)) {
    const prop = manifest.contributes.configuration.properties[name];
    for (const key of ["type", "default", "enum", "minimum", "maximum", "description"]) {
      assert.deepStrictEqual(prop[key], entry[key], `${name}.${key}`);
    }
  }
});

test("every client command of shared/commands.json is contributed, none collides with a server command", () => {
  const cmds = shared("commands.json");
  const contributed = manifest.contributes.commands.map((c) => c.command);
  for (const name of Object.keys(cmds.client)) assert.ok(contributed.includes(name), `${name} is not contributed`);
  // vscode-languageclient registers the server's commands under their own ids.
  for (const name of Object.keys(cmds.server)) assert.ok(!contributed.includes(name), `${name} is a server command`);
  assert.ok(contributed.includes("shapehint.annotate"), "Annotate Function");
  for (const c of manifest.contributes.commands) assert.strictEqual(c.category, "ShapeHint");
});

test("activation, trust and packaging fields", () => {
  assert.ok(manifest.activationEvents.includes("onLanguage:python"));
  assert.ok(manifest.activationEvents.includes("onNotebook:jupyter-notebook"));
  assert.strictEqual(manifest.main, "./dist/extension.js");
  assert.strictEqual(manifest.capabilities.untrustedWorkspaces.supported, "limited");
  assert.deepStrictEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations,
    ["shapehint.interpreter", "shapehint.deviceRun.interpreter"]);
  const types = JSON.parse(fs.readFileSync(path.join(EXT, "..", "node_modules", "@types", "vscode", "package.json"), "utf8"));
  const engine = manifest.engines.vscode.replace(/^\^/, "");
  assert.ok(types.version.localeCompare(engine, undefined, { numeric: true }) <= 0, "@types/vscode newer than engines.vscode");
  const ignore = fs.readFileSync(path.join(EXT, ".vscodeignore"), "utf8");
  for (const p of ["node_modules/**", "src/**", "tests/**"]) assert.ok(ignore.includes(p), p);
  for (const f of ["LICENSE", "README.md", "python/shapehint_launch.py"]) assert.ok(fs.existsSync(path.join(EXT, f)), f);
});

test("the README documents every setting and command", () => {
  const readme = fs.readFileSync(path.join(EXT, "README.md"), "utf8");
  for (const name of Object.keys(shared("settings.json"))) assert.ok(readme.includes(`\`${name}\``), name);
  for (const c of manifest.contributes.commands) assert.ok(readme.includes(`ShapeHint: ${c.title}`), c.title);
});
